"""``auto``'s choice of engine by expected work: the Python engine first, within a node budget.

Loading the compiled engine costs about half a second of a process (numba's own start-up,
docs/performance.md), which the Python engine spends on about :data:`BREAK_EVEN_NODES` nodes.
So :class:`gametree.search.solver.Solver` with ``engine="auto"`` searches on the Python engine
while the nodes it has searched in all (this search's and the earlier ones') stay within that
budget: a search that finishes within it is done, exact; one that would go beyond it stops at
the node that crosses it (:class:`ProbeExhausted`), and that search and every later one runs on
the compiled engine, from scratch (what the Python engine proved stays in its table, which the
compiled engine does not read: its answer is exact either way).  A batch that says how many
positions it holds (:meth:`WorkTally.expect`) hands over as soon as the nodes so far, averaged
over the positions so far, project past the budget for the whole batch.

:class:`NodeBudget` is the Python engine's stop flag (:class:`gametree.search.contract.StopFlag`),
which its node function reads at every node: reading it counts the node against the budget.
"""

from __future__ import annotations

from collections.abc import Callable

from .contract import StopFlag

__all__ = ["BREAK_EVEN_NODES", "NATIVE_BREAK_EVEN_NODES", "UNLIMITED", "NodeBudget", "ProbeExhausted", "WorkTally"]

#: The Python engine's nodes that take about as long as loading the compiled engine (about 2.4 µs
#: a Connect Four node against about 0.5 s of numba's start-up on this machine: 100,000 to 200,000;
#: the lower end, so that a search that needs the compiled engine loses at most about 0.25 s).
BREAK_EVEN_NODES = 100_000
#: The same when the compiled engine's native code is kept (gametree.search.native: numpy, llvmlite
#: and the object load, no numba): 5x4 tic-tac-toe, 4 in a row, as a whole process took 0.16 s on
#: the compiled engine and 0.08 s + about 3 µs a node on the Python engine, 0.41 s for its 109,423
#: nodes: level at about 27,000 nodes.
NATIVE_BREAK_EVEN_NODES = 30_000

#: A budget that never runs out.
UNLIMITED = 1 << 62


class ProbeExhausted(Exception):
    """The Python engine's search crossed its node budget: hand the search over to the compiled engine."""


class NodeBudget(StopFlag):
    """A stop flag that also stops a search, with :class:`ProbeExhausted`, once it has been read
    more than ``left`` times (once a node); unlimited until :meth:`arm`."""

    __slots__ = ("armed", "exhausted", "left", "stop_set")

    def __init__(self) -> None:
        self.stop_set = False
        self.left = UNLIMITED
        self.exhausted = self.armed = False
        super().__init__()

    @property
    def set(self) -> bool:
        """Whether the search must stop: set from outside, or the budget spent (this node counted)."""
        self.left -= 1
        if self.left < 0:
            self.exhausted = True
            return True
        return self.stop_set

    @set.setter
    def set(self, value: bool) -> None:
        self.stop_set = value

    def arm(self, nodes: int) -> None:
        """Let the next searches visit ``nodes`` nodes in all."""
        self.left, self.exhausted, self.armed = nodes, False, True

    def disarm(self) -> None:
        self.left, self.exhausted, self.armed = UNLIMITED, False, False

    def stopped(self) -> BaseException:
        if self.exhausted and not self.stop_set:
            return ProbeExhausted()
        return super().stopped()


class WorkTally:
    """The Python engine's work so far in one solver, and whether the compiled engine is due.

    ``budget``: the nodes, or a function that tells them when first asked (finding them may cost
    a look at the disk, which a solver that never probes does not pay)."""

    def __init__(self, budget: int | Callable[[], int] = BREAK_EVEN_NODES) -> None:
        self._budget = budget
        self.nodes = 0
        self.searches = 0
        #: The positions the caller expects to solve in all (None: not said).
        self.expected: int | None = None
        #: Set once the work says the compiled engine pays: every later search runs there.
        self.handed_over = False

    @property
    def budget(self) -> int:
        """The Python engine's nodes before the compiled engine pays."""
        if not isinstance(self._budget, int):
            self._budget = self._budget()
        return self._budget

    @budget.setter
    def budget(self, nodes: int) -> None:
        self._budget = nodes

    def expect(self, positions: int) -> None:
        """The caller will solve this many positions in all (a batch)."""
        self.expected = positions

    def left(self) -> int:
        """Nodes the next Python search may visit."""
        return max(0, self.budget - self.nodes)

    def add(self, nodes: int) -> None:
        """A search on the Python engine finished after ``nodes`` nodes."""
        self.nodes += nodes
        self.searches += 1
        to_come = (self.expected - self.searches) if self.expected is not None else 0
        projected = self.nodes + to_come * self.nodes / self.searches
        if self.nodes >= self.budget or projected > self.budget:
            self.handed_over = True

    def exhausted(self) -> None:
        """A search crossed the budget."""
        self.handed_over = True
