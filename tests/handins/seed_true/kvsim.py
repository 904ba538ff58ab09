# Written from the lab text alone, as a student on LabHub would: no counters, no helpers.
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.entries = OrderedDict()
        self.used = 0

    def access(self, key, size):
        if key in self.entries:
            self.entries.move_to_end(key)
            return True
        if size > self.capacity:
            return False
        while self.used + size > self.capacity:
            _, old = self.entries.popitem(last=False)
            self.used -= old
        self.entries[key] = size
        self.used += size
        return False

    def __contains__(self, key):
        return key in self.entries

    def keys(self):
        return list(self.entries)


class TwoTierCache:
    def __init__(self, gpu_capacity, cpu_capacity):
        self.gpu = LRUCache(gpu_capacity)
        self.cpu = LRUCache(cpu_capacity)

    def access(self, key, size):
        if key in self.gpu:
            self.gpu.access(key, size)
            return "gpu"
        if key in self.cpu:
            self.cpu.access(key, size)
            self.gpu.access(key, size)
            return "cpu"
        self.gpu.access(key, size)
        self.cpu.access(key, size)
        return "miss"
