"""Ctrl-C (SIGINT), a scheduler's SIGTERM and a requeue's SIGUSR2 stop a run cleanly: a checkpoint, then one
line on how to resume.

The first signal asks the run to stop at its next safe point (between update phases, or at once
during an evaluation, which is redone on resume); ``RLModule`` writes a checkpoint there and ends
training. A second Ctrl-C stops at once, without a checkpoint. The handlers are installed when
training starts, over Lightning's own SIGTERM handler (which would stop mid-update, with no
checkpoint), and put back when it ends. A handler that was there before rlfw's gets the signal once
the checkpoint is written (``pass_on``): submitit's, on SIGUSR2, then requeues the job, whose same
command with ``resume=auto`` continues it.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

log = logging.getLogger("rlfw")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR2)  # SIGUSR2: Slurm's and submitit's "time is nearly up"


class StopSignals:
    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self._previous: dict[int, Any] = {}  # what signal.signal returned

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():  # Python allows handlers only there
            self._previous = {s: signal.signal(s, self._handle) for s in SIGNALS}

    def uninstall(self) -> None:
        """Puts back the handlers from before ``install``, where rlfw's is still the one installed: Lightning
        puts back its own originals when a fit ends, and those must stay."""
        for signum, handler in self._previous.items():
            if signal.getsignal(signum) == self._handle:
                signal.signal(signum, handler)
        self._previous = {}

    def agree(self, received: signal.Signals | None) -> None:
        """A ddp run: another rank received ``received``; this rank stops with it too."""
        if self.received is None and received is not None:
            self.received = received

    def _handle(self, signum: int, frame) -> None:
        if self.received is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt  # Ctrl-C twice: stop now
        self.received = signal.Signals(signum)
        log.warning(
            "%s: stopping at the next safe point with a checkpoint (Ctrl-C again stops at once, without one)",
            self.received.name,
        )


def pass_on(signum: int) -> None:
    """Calls the Python handler this process has for ``signum`` (rlfw's own is uninstalled by now),
    if any: a launcher's, such as submitit's requeue. The default actions are not taken: rlfw exits itself."""
    handler = signal.getsignal(signum)
    if callable(handler) and signum != signal.SIGINT:  # Ctrl-C is the user's, and has been answered
        handler(signum, None)
