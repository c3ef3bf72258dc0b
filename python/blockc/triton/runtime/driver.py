"""`triton.runtime.driver.active`: the device a script asks about is the CPU.

Tutorials ask the driver for the torch device to allocate on and for the
target's backend name; both answer `cpu`, so scripts that branch on
`is_cuda()` take their non-CUDA path and allocate on the host.
"""

import os
import platform


class GPUTarget:
    """Triton's target triple: backend, architecture, warp size."""

    def __init__(self, backend, arch, warp_size):
        self.backend = backend
        self.arch = arch
        self.warp_size = warp_size

    def __repr__(self):
        return f"GPUTarget(backend={self.backend!r}, arch={self.arch!r}, warp_size={self.warp_size})"


class _Utils:
    @staticmethod
    def get_device_properties(device=None):
        cores = os.cpu_count() or 1
        # The GPU fields tutorials read, answered for one program per core.
        return {"multiprocessor_count": cores, "max_shared_mem": 0, "max_num_regs": 0,
                "warpSize": 1, "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0,
                "max_threads_per_block": 1}


class CpuDriver:
    backend = "cpu"
    utils = _Utils()

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        if device not in (0, "cpu"):
            raise ValueError(f"blockc runs on the CPU: there is no device {device!r}")

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cpu", platform.machine(), 1)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_device_interface(self):
        import torch
        return torch.cpu

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        return None

    def is_active(self):
        return True


class _DriverConfig:
    def __init__(self):
        self.default = CpuDriver()
        self.active = self.default

    def set_active(self, driver):
        self.active = driver

    def reset_active(self):
        self.active = self.default


driver = _DriverConfig()
