"""The lab's numbers: its defaults and the capacities its steps sweep (the lab text).

The defaults also sit in scenario.py, the student's file, which must run alone; a test keeps the two equal.
Where they come from: the lab text gives 21,520 tokens of GPU KV cache and 5,011-token documents as
scenario.py's defaults, and says no more; 21,520 // 5,011 = 4 documents fit, and the ten documents need
10 x 5,011 = 50,110 tokens. The measured documents hold 4,864 tokens of KV (19 LMCache chunks of 256).
The CPU capacity of 56,000 tokens approximates the measured CPU limit (1.5 GiB) over the KV of one
4,864-token document (28,672 bytes per token: 0.1299 GiB), as the lab text says.
"""

GPU, CPU, DOCS, TOKENS, PASSES = 21520, 0, 10, 5011, ("fwd", "fwd", "rev")
GPU_CAPACITIES = (21520, 30000, 40000, 45000, 50109, 50110)          # step 4
CPU_CAPACITIES = (0, 20000, 30000, 40000, 50109, 50110, 56000)      # step 7
OFFLOAD_CPU = 56000                                                  # step 6
FWD_FWD, FWD_FWD_REV = ("fwd", "fwd"), ("fwd", "fwd", "rev")
ORDERS = ("fwd", "rev")
MEASURED_TOKENS = 4864                                               # the measured documents' KV (19 LMCache chunks of 256)
CONFIGS = ("baseline", "lmcache")
