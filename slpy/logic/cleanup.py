"""Goals run inside a step: setup_call_cleanup/3 and call_cleanup/2, and the output
a goal writes (with_output_to/2, format's ~@). A part of
:class:`slpy.logic.engine.Engine`.

``'$call_cleanup'(Goal, Cleanup)`` pushes a CP_CLEANUP choice point and runs Goal
above it. Cleanup runs once, when Goal is finished: it exits with no choice point left
(at once), it fails or is backtracked into for the last time (the choice point is
reached), it raises an exception (the choice point is unwound), or a cut removes the
choice point. The engine counts the live cleanup choice points, so a cut pays for the
check only while one exists. Cleanup runs as once/1 with its bindings undone; a
failure is ignored; an exception it raises is passed on unless Goal raised one.
"""
from __future__ import annotations

from ..terms.unify import undo_to
from ..terms.term import PrologError
from .kinds import CP_CLEANUP, CP_DISABLED, CP_KIND, CLEANUP_GOAL, P_CLEANUP_EXIT


class Cleanup:
    """The engine's cleanup choice points (mixed into Engine)."""

    cleanups = 0    # live CP_CLEANUP choice points

    def _call_cleanup(self, args, nxt, pn):
        goal, cleanup = args
        cps = self.cps
        cp = [CP_CLEANUP, len(self.trail), self.plog, self.logp, cleanup]
        cps.append(cp)
        self.cleanups += 1
        return self.goal_frame(goal, (P_CLEANUP_EXIT, (cp,), nxt, len(cps), pn),
                               len(cps), pn)

    def _cleanup_exit(self, cp, nxt):
        if self.cps and self.cps[-1] is cp:   # Goal left no choice point: done
            self.cps.pop()
            self._fire_cleanup(cp)
        return nxt

    def _fire_cleanup(self, cp, quiet=False):
        if cp[CP_KIND] != CP_CLEANUP:
            return
        cp[CP_KIND] = CP_DISABLED
        self.cleanups -= 1
        mark = len(self.trail)
        run = self.solve(cp[CLEANUP_GOAL])
        try:
            next(run, None)
        except PrologError:
            if not quiet:
                raise
        finally:
            run.close()
            undo_to(self.trail, mark)

    def _drop_cps(self, h, quiet=False):
        """Remove the choice points from h on, running the cleanups among them (the
        most recent first)."""
        cps = self.cps
        live = [cp for cp in cps[h:] if cp[CP_KIND] == CP_CLEANUP] if self.cleanups else ()
        del cps[h:]
        for cp in reversed(live):
            self._fire_cleanup(cp, quiet)

    def call_capture(self, goal):
        """Run goal once with what it writes collected: the text, or None when it
        fails (with_output_to/2, format's ~@)."""
        buf: list = []
        saved = self.out
        self.out = buf.append
        started = self.coroutining
        run = self.solve(goal)
        try:
            text = "".join(buf) if next(run, None) else None
        finally:
            run.close()
            self.out = saved
        self.started_inside = self.coroutining and not started
        return text
