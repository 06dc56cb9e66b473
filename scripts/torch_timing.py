"""Times a PyTorch call on the GPU the way coalesce times its CUDA work.

CUDA events around the call, but with the GPU kept busy first by
torch.cuda._sleep (a spinning kernel) while Python queues the start event,
the call and the stop event: on an idle GPU the start would be taken at once
and the host's dispatch and launch latency would count as the call's time.
coalesce's CUDA backend does the same with its own spin kernel; OpenCL's
profiling counts the command alone."""

SPIN_CYCLES = 1_000_000  # about 0.5 ms at 2 GHz: ample for the Python between


def times_ms(torch, fn, reps, warmup=3):
    """The GPU time of each of `reps` calls of fn, in ms, after `warmup` calls."""
    for _ in range(warmup):  # allocator, kernel selection
        fn()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return times
