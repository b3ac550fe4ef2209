"""cancel_pending_timers: a run's end does not wait for Snakemake's rate-limiter timers;
threads that are not timers are left alone."""

from __future__ import annotations

import threading
import time

from irmeta.pipeline.summary import cancel_pending_timers


def test_pending_timers_are_cancelled_and_other_threads_left_alone():
    fired = []
    timers = [threading.Timer(30.0, lambda: fired.append(1)) for _ in range(2)]
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, args=(30.0,))
    for thread in (*timers, worker):
        thread.start()
    try:
        started = time.perf_counter()
        assert cancel_pending_timers() == 2
        for timer in timers:
            timer.join(5.0)
            assert not timer.is_alive()
        assert time.perf_counter() - started < 5.0 and not fired
        assert worker.is_alive()  # not a timer: not touched
    finally:
        stop.set()
        worker.join()
