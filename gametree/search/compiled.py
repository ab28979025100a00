"""The compiled engine: the exact solver's search at compiled speed, for games with compiled rules.

A game that is :class:`gametree.game.Compilable` gives its rules as numba
functions (a :class:`gametree.game.RuleSet`) with its board's constants
(:class:`gametree.game.CompiledRules`); :class:`CompiledEngine` builds the
compiled negamax of :mod:`gametree.search.kernel` over them and offers the
interface of :class:`gametree.search.engine.Engine` that the exact solver's
drivers use (``search``, ``root``, ``counters``, ...), so that
:func:`gametree.search.exact.exact_score`, best moves and principal variations
run unchanged on either engine.  The pure-Python engine is the reference: both
give the same scores and moves; node counts differ (the compiled engine settles
fewer positions from their parent).

Which engine runs is chosen by ``engine``: ``"python"``, ``"compiled"`` (an error
for a game without compiled rules, a board they do not cover, or without numba)
or ``"auto"`` (see :func:`use_compiled`).  numba is imported only when a
compiled engine is built; its compiled code is cached on disk
(:func:`cache_folder`), so a process after the first loads it instead of
compiling it (about half a second with numba's own start-up, against several
seconds of compiling).  That process also saves the search's machine code
(:mod:`gametree.search.native_build`), which later processes load without numba
at all (:mod:`gametree.search.native`: about 40 ms); numba's code is the
fallback whenever that file is missing or not fit to load.

While a compiled search runs, Python code does not: the search releases the
GIL and the runtime's signal watch (:mod:`gametree.runtime.signals`), woken by
Python's signal wake-up file, asks it to stop on Ctrl-C, SIGTERM or SIGHUP (it
looks at every node), so that they end it at once.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ..game import (
    CompiledRules,
    Game,
    RuleSet,
    State,
    UnsupportedGameError,
    capabilities,
    end_score,
    game_name,
    win_score,
)
from ..runtime.caches import largest_cache_bytes
from ..runtime.signals import watch
from . import compile_state, numba_support
from .compile_state import cache_folder
from .contract import Counters, EngineName, RootReport, SearchTimeout, TableFill
from .margins import margin_bound
from .options import ENGINES, EngineChoice
from .probe import BREAK_EVEN_NODES, NATIVE_BREAK_EVEN_NODES
from .table import BYTES_PER_ENTRY, UNLIMITED_DEPTH, TranspositionTable

if TYPE_CHECKING:
    import numpy as np

    from .kernel_layout import Kernel
    from .native import Loaded
    from .shared_table import SharedTable

__all__ = [
    "AUTO_PLIES",
    "ENGINES",
    "BYTES_PER_COMPACT_ENTRY",
    "BYTES_PER_COMPILED_ENTRY",
    "CompiledEngine",
    "NO_NATIVE_FROM",
    "EngineChoice",
    "break_even_nodes",
    "cache_folder",
    "compact_layout",
    "compiled_rules",
    "default_compiled_bytes",
    "engines_of",
    "native_enabled",
    "native_wanted",
    "numba_available",
    "shared_table_bytes",
    "use_compiled",
]

P = ParamSpec("P")
T = TypeVar("T")


#: ``auto`` runs a search with at most this many plies left on the Python engine (it finishes
#: before numba would be loaded); a longer one may run on the compiled engine: :class:`~gametree.search.solver.Solver`'s
#: own searches try the Python engine first within a node budget (:mod:`gametree.search.probe`),
#: an engine asked for from outside is the compiled one.  Whole processes measured on
#: this machine: 4x4 k=4 tic-tac-toe (16 plies) 0.39 s on Python against about 0.7 s compiled;
#: from 20 plies it depends on the game (5x4 Connect Four 0.45 s on Python, 5x4 k=4 tic-tac-toe
#: 2.14 s on Python and 0.59 s compiled).
AUTO_PLIES = 16

#: Bytes of one entry of the compiled table: two key words and one of data, and a third of the
#: cache line that holds two (:data:`gametree.search.kernel.BUCKET_WORDS`).
BYTES_PER_COMPILED_ENTRY = 32

#: Bytes of one entry of the compact table, for rules whose keys are one word
#: (:attr:`gametree.game.CompiledRules.key_bits`): key check bits, both bounds, the best move
#: and the work in one word (:data:`gametree.search.kernel.COMPACT_BUCKET_WORDS` a bucket).
BYTES_PER_COMPACT_ENTRY = 8


@functools.cache
def numba_available() -> bool:
    """Whether numba can be imported here (asked without importing it)."""
    return importlib.util.find_spec("numba") is not None


def compiled_rules(game: Game[Any, Any]) -> CompiledRules | None:
    """The game's compiled rules, or None (no compiled rules, or not for this board)."""
    compilable = capabilities(game).compiled
    return compilable.compiled_rules() if compilable is not None else None


def use_compiled(game: Game[Any, Any], engine: EngineChoice, plies: int, budget: float | None = None) -> bool:
    """Whether a search ``plies`` deep at most runs on the compiled engine.

    ``"compiled"``: yes, or :class:`UnsupportedGameError` saying why it cannot;
    ``"python"``: no; ``"auto"``: when it can and the search may go more than
    :data:`AUTO_PLIES` plies deep (shorter ones end before the compiled engine would
    be loaded), unless the search has a time ``budget`` (seconds) shorter than compiling
    the engine would take while it is not compiled yet (:mod:`gametree.search.compile_state`):
    a hint or a computer's move does not wait on a compile longer than its time.
    """
    if engine == "python":
        return False
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    if engine == "auto" and plies <= AUTO_PLIES:
        return False
    rules = compiled_rules(game)
    if rules is None:
        if engine == "auto":
            return False
        why = "has no compiled rules" if capabilities(game).compiled is None else "has no compiled rules for this board"
        raise UnsupportedGameError(f"{game_name(game)} {why}: use --engine python (or auto)")
    if not numba_available():
        if engine == "auto":
            return False
        raise UnsupportedGameError(
            "the compiled engine needs numba, which is not installed here: pip install numba, or use --engine python"
        )
    if engine == "auto" and budget is not None and not compile_state.ready(game):
        return compile_state.estimate(game) <= budget
    return True


def engines_of(game: Game[Any, Any]) -> tuple[tuple[str, ...], str]:
    """The engines that can search ``game`` here, best first, and why not the compiled one ("" if it can)."""
    compilable = capabilities(game).compiled
    if compilable is None:
        return ("python",), "no compiled rules"
    if compilable.compiled_rules() is None:
        return ("python",), "no compiled rules for this board"
    if not numba_available():
        return ("python",), "the compiled rules need numba"
    return ("compiled", "python"), ""


# -- building ---------------------------------------------------------------------------------
def _numba_cache() -> None:
    """Point numba's on-disk cache at :func:`cache_folder` before numba is first imported here
    (:func:`gametree.search.numba_support.use_cache_folder`)."""
    numba_support.use_cache_folder(cache_folder())


#: The kernels built in this process, by rules, table kind and the board they are specialised to.
_kernels: dict[tuple[RuleSet, bool, str | None], Kernel] = {}


def _kernel(functions: RuleSet, compact: bool, board: np.ndarray | None = None) -> Kernel:
    """The compiled search over the rules ``functions``, with the compact table or not, for every
    board or specialised to ``board``'s constants (built once per process)."""
    key = _kernel_key(functions, compact, board)
    found = _kernels.get(key)
    if found is None:
        _numba_cache()
        from .kernel import build

        found = _kernels[key] = build(functions, compact, board)
    return found


def _kernel_key(functions: RuleSet, compact: bool, board: np.ndarray | None) -> tuple[RuleSet, bool, str | None]:
    from .kernel_layout import board_digest

    return functions, compact, None if board is None else board_digest(board)


def _native_kernel(rules: CompiledRules, compact: bool, board: np.ndarray) -> Loaded | None:
    """The search's native code (:mod:`gametree.search.native`), if a process compiled it before and
    it is fit to load here; None: numba's."""
    if not native_enabled():
        return None
    from . import native

    return native.load(rules, compact, board)


def native_enabled() -> bool:
    """Whether engines may load the native code (llvmlite installed, ``GAMETREE_NATIVE`` not 0)."""
    if not _llvmlite_available():
        return False
    from .native_files import switched_on  # (not gametree.search.native: it imports numpy)

    return switched_on()


@functools.cache
def _llvmlite_available() -> bool:
    return importlib.util.find_spec("llvmlite") is not None


def break_even_nodes(game: Game[Any, Any]) -> int:
    """``auto``'s budget for the Python engine (:mod:`gametree.search.probe`): smaller when the
    compiled engine's native code is kept for the game's rules (loading it costs less than numba)."""
    rules = compiled_rules(game)
    if rules is not None and native_enabled():
        from .native_files import kept  # (not gametree.search.native: it imports numpy)

        if kept(rules):
            return NATIVE_BREAK_EVEN_NODES
    return BREAK_EVEN_NODES


def native_wanted(rules: CompiledRules, compact: bool, board: np.ndarray) -> bool:
    """Whether a process that built numba's kernel should save its native code: enabled, and no file
    fit to load there now (the loader refused it, or there is none)."""
    if not native_enabled():
        return False
    from . import native

    if native.identity(rules, compact, board) is None:
        return False
    why = native.unfit(rules, compact, board)
    return why is not None and not why.startswith(native.UNFIT_WHEN_MADE)


def _table_budget(table: TranspositionTable | None, entry_bytes: int) -> int:
    """Buckets (of two entries of ``entry_bytes``) of the compiled table in the memory ``table`` may
    take (a power of two; 0: no table); :func:`default_compiled_bytes` at most unless the user asked
    for the size."""
    if table is None:
        return 0
    budget = table.max_entries * BYTES_PER_ENTRY
    if not table.requested:
        budget = min(budget, default_compiled_bytes())
    buckets = max(1, budget // (2 * entry_bytes))
    return 1 << (buckets.bit_length() - 1)


def shared_table_bytes(entries: int, workers: int) -> int:
    """The memory of a compact table shared by ``workers`` processes, each of which would keep a
    table for ``entries`` Python entries (not asked for by the user): as much as their own tables
    together, to a power of two of buckets."""
    buckets = workers * _table_budget(TranspositionTable(entries), BYTES_PER_COMPACT_ENTRY)
    return (1 << (buckets.bit_length() - 1)) * 2 * BYTES_PER_COMPACT_ENTRY


def compact_layout(rules: CompiledRules, largest_score: int, least_buckets: int) -> tuple[int, int] | None:
    """Where the compact table's entries of these rules keep their check bits and the bits of a
    bound (``cshift, vbits``), or None if they cannot use it: keys of more than one word, moves
    beyond the entry's 7 bits, or a table of ``least_buckets`` too few for the key's bits (an entry
    and its bucket must name one key exactly)."""
    from .kernel_layout import COMPACT_FIELD_BITS

    vbits = (2 * largest_score).bit_length()
    cshift = COMPACT_FIELD_BITS + 2 * vbits
    bucket_bits = max(0, least_buckets.bit_length() - 1)
    if rules.key_bits > 64 or rules.max_moves > 126 or rules.key_bits - bucket_bits > 64 - cshift:
        return None
    return cshift, vbits


#: The compiled table's memory at most, unless the user asked for a size (``--cache-size``), is a
#: share of the processor's largest cache (:func:`default_compiled_bytes`): a probe that finds its
#: bucket in the cache costs a fraction of one that waits for memory, which outweighs the nodes a
#: larger table saves.  Measured on this machine (32 MiB of L3 cache shared by 2 cores), 7x6
#: Connect Four from the empty board, score only: 4 MiB 67 s and 1.31 G nodes, 8 MiB 86 s and
#: 1.16 G nodes, 64 MiB 127 s and 0.94 G nodes (docs/performance-log.md).
CACHE_SHARE = 8
#: The table's default memory where the cache's size is not known, and its bounds otherwise.
FALLBACK_COMPILED_BYTES = 4 << 20
LEAST_COMPILED_BYTES = 2 << 20
MOST_COMPILED_BYTES = 64 << 20


@functools.cache
def default_compiled_bytes() -> int:
    """The compiled table's memory unless the user asks for a size: an eighth of the processor's
    largest cache (:data:`CACHE_SHARE`), to a power of two, between :data:`LEAST_COMPILED_BYTES`
    and :data:`MOST_COMPILED_BYTES`; :data:`FALLBACK_COMPILED_BYTES` where the size is not known."""
    cache = largest_cache_bytes()
    if cache is None:
        return FALLBACK_COMPILED_BYTES
    share = max(1, cache // CACHE_SHARE)
    return min(MOST_COMPILED_BYTES, max(LEAST_COMPILED_BYTES, 1 << (share.bit_length() - 1)))


#: The compiled table starts with room for 2 ** (plies left - TABLE_PLIES_OFFSET) buckets (at least
#: 2 ** MIN_TABLE_BITS, at most the budget), and grows, between searches, for a position with more
#: plies left: every page of a table is written sooner or later, and the system's zeroing of a
#: table of the whole budget (400 MB by default) costs more than a short search.
TABLE_PLIES_OFFSET = 8
MIN_TABLE_BITS = 16

#: The compact table's buckets are a quarter of the other's (16 bytes against 64): it starts with
#: 2 ** COMPACT_EXTRA_BITS times as many, the same memory.
COMPACT_EXTRA_BITS = 2
#: The compact table's floor: half the memory of the other's (2 MB).  At a quarter (the same number of
#: buckets, 1 MB) 5x4 Connect Four from the empty board took 31,206 nodes against 31,203 in the other
#: table (collisions: 31,167 in both with 2 ** 24 buckets), at 2 MB 31,191; at 4 MB 31,183, but a
#: table kept for Pons's end-easy set, whose searches are tens of nodes, then cost about 10% more
#: time a node (its probes miss the processor's caches more; docs/performance-log.md).
COMPACT_FLOOR_BITS = MIN_TABLE_BITS + 1


#: The kernels (rules, compact table) whose native code this process does not write: those a
#: background compile built (gametree.search.background).  Writing it is a long call into LLVM
#: that does not hold the GIL, in a daemon thread that the interpreter's exit does not wait for:
#: a game that ended meanwhile crashed the process at exit (SIGSEGV, seen in CI).  An engine
#: built later in the same process would write it in the foreground, making a move wait a second
#: or more; the next process that builds the engine through numba writes it.
NO_NATIVE_FROM: set[tuple[RuleSet, bool, str | None]] = set()

#: The stop flag's value when :meth:`CompiledEngine.halt` set it (a signal sets 1).
HALTED = 2


class CompiledEngine:
    """The compiled exact search of one game, with its table: a
    :class:`gametree.search.contract.SearchEngine`.

    Searches to the end of the game only (no depth limit, no heuristic, no
    observer).  ``table`` sets the memory of its own table (a fixed array of
    :data:`BYTES_PER_COMPILED_ENTRY` bytes an entry, up to the memory the Python
    table would take); None: no table.  ``shared``: search in that table, with the other
    processes given it, instead (:mod:`gametree.search.shared_table`; the compact table only).
    ``keep_native``: false in a thread the process may not wait for (see :data:`NO_NATIVE_FROM`).
    """

    def __init__(
        self,
        game: Game[Any, Any],
        rules: CompiledRules,
        *,
        table: TranspositionTable | None = None,
        symmetry: bool = True,
        counters: Counters | None = None,
        shared: SharedTable | None = None,
        keep_native: bool = True,
    ) -> None:
        import numpy as np

        from . import kernel_layout

        self._np = np
        self._kernel_module = kernel_layout
        self.game = game
        self.rules = rules
        self._plan(table)
        self._g = kernel_layout.board_constants(rules.board)
        # The search's machine code without numba when a process compiled it before (native.py), else numba's.
        loaded = _native_kernel(rules, self._layout is not None, self._g)
        #: The native object file the search runs from (None: numba's code).
        self.native_file = loaded.file if loaded is not None else None
        if loaded is not None:
            compile_state.loaded(game, rules)
            self._build(game, rules, loaded.kernel, loaded.score, symmetry, counters)
        else:
            with compile_state.compiling(game, rules):  # (said first when numba compiles it: seconds, once)
                compiled, score = self._numba_kernel(rules, keep_native)
                self._build(game, rules, compiled, score, symmetry, counters)
        if shared is not None:
            self._share(shared)

    def _plan(self, table: TranspositionTable | None) -> None:
        """The table's memory budget, the largest score and the table's kind (compact or not)."""
        game = self.game
        #: A margin game's largest margin (0: a win/draw/loss game), which its rules must score.
        self.margin = margin_bound(game.info) if game.info.margin else 0
        self.C = game.info.max_plies
        self._budget = _table_budget(table, BYTES_PER_COMPACT_ENTRY)
        largest = max(self.margin, (self.C + 2) // 2)
        layout = compact_layout(self.rules, largest, min(max(1, self._budget), 1 << MIN_TABLE_BITS))
        #: The compact table's layout (None: the table of two-word keys).
        self._layout = layout
        if layout is None:
            self._budget = _table_budget(table, BYTES_PER_COMPILED_ENTRY)
        self._largest = largest

    def _numba_kernel(self, rules: CompiledRules, keep_native: bool) -> tuple[Kernel, bool]:
        """numba's kernel of the rules (loaded from numba's cache, or compiled), its native object
        saved too when there is none fit to load (native_build.py) unless ``keep_native`` is false
        (then not by this process at all: see :data:`NO_NATIVE_FROM`); and whether the rules score ends."""
        _numba_cache()  # (before the rules' module imports numba)
        functions = rules.functions()
        compact = self._layout is not None
        fixed = self._g if rules.specialise else None
        compiled = _kernel(functions, compact, fixed)
        key = _kernel_key(functions, compact, fixed)
        if not keep_native:
            NO_NATIVE_FROM.add(key)
        elif key not in NO_NATIVE_FROM and native_wanted(rules, compact, self._g):
            from .native_build import save

            try:
                save(rules, functions, compact, compiled, self._g)
            except Exception:  # noqa: BLE001,S110 (no native object: numba's code serves, as before it existed)
                pass
        return compiled, functions.score is not None

    def _build(
        self,
        game: Game[Any, Any],
        rules: CompiledRules,
        compiled: Kernel,
        scores: bool,
        symmetry: bool,
        counters: Counters | None,
    ) -> None:
        """The engine's parts, and its compiled functions loaded (or compiled) and called once."""
        np, kernel, layout = self._np, self._kernel_module, self._layout
        if game.info.margin and not scores:
            raise UnsupportedGameError(
                f"the compiled rules of {game_name(game)} give no score (a margin game's rules must): "
                "use --engine python"
            )
        self._compiled = compiled
        self.search_kernel = compiled.search
        #: The rules' ``win_now`` (None: plain rules, no threats).
        self._win_now = compiled.win_now
        if self.C + 2 > kernel.SCORE_LIMIT:
            raise UnsupportedGameError(
                f"{game_name(game)} is too long for the compiled engine ({self.C:,} plies; at most "
                f"{kernel.SCORE_LIMIT - 2:,})"
            )
        self.counters = counters if counters is not None else Counters()
        self.symmetry = symmetry
        self.table = None  # no Python table: best moves are found by searching, the compiled table warm
        self.limit = UNLIMITED_DEPTH
        self.depth = None
        self.root = RootReport()
        self._table = kernel.table_words(1)
        self._mask = -1
        self._work_array(self.C + 66)
        #: The table's probes, hits and stores so far (as a Python table counts them).
        self.probes = self.hits = self.stores = 0
        signals = watch()
        signals.start()
        # numba loads (or compiles) each function at its first call: make them now (the search
        # told to stop at once), so that the time it takes is not counted as the first search's.
        seen = signals.count
        try:
            with numba_support.quiet_compile_interrupts():
                self._control[kernel.STOP] = 1
                a, b = rules.encode(game.initial_state())
                self.search_kernel(self._g, self._table, self._work, np.uint64(a), np.uint64(b), 0, 0, -1, 1, 0)
                if layout is None:
                    compiled.rehash(kernel.table_words(1), kernel.table_words(2))
                else:
                    compiled.rehash_compact(kernel.table_words(1, 2), kernel.table_words(2, 2), 0, layout[0])
                if self._win_now is not None:
                    self._win_now(self._g, np.uint64(a), np.uint64(b))
        except Exception as exc:
            # Ctrl-C while numba compiles can surface as an error of numba's own (llvmlite swallows
            # the KeyboardInterrupt in a callback): if a stop signal came meanwhile, it was that.
            if signals.signalled_since(seen):
                raise KeyboardInterrupt from exc
            raise
        self._per_height[:] = 0
        #: Set by :meth:`halt`: searches stop with SearchTimeout until :meth:`resume`.
        self._halted = False
        #: While the kernel runs, its node count is in the control array (see :meth:`nodes_now`).
        self._searching = False
        #: The stop signals seen before this engine was built: one that came while it was built
        #: (perhaps swallowed, as above, without an error) stops its first search.
        self._signals_before: int | None = seen

    def _share(self, shared: SharedTable) -> None:
        """Search in the table ``shared`` with other processes from now on (this engine's own table
        dropped), if this engine keeps a compact table (entries of one word; see
        :mod:`gametree.search.shared_table`) and the memory can be mapped; else keep its own."""
        k = self._kernel_module
        if self._layout is None:
            return
        buckets = shared.size // (8 * k.COMPACT_BUCKET_WORDS)
        if buckets < 2 or buckets & (buckets - 1):
            return
        # The entries' layout depends on the table's size only through its floor (compact_layout):
        # every engine sharing it must place its fields alike.
        if compact_layout(self.rules, self._largest, min(buckets, 1 << MIN_TABLE_BITS)) != self._layout:
            return
        words = shared.attach()
        if words is None:
            return
        self._table, self._mask, self._budget = words, buckets - 1, buckets
        self._set_mask()

    def _work_array(self, heights: int) -> None:
        """A new work array (:func:`gametree.search.kernel.build`) with room to count ``heights``
        heights, its parameters set; ``_control`` and ``_per_height`` are views of its parts."""
        k, np, rules = self._kernel_module, self._np, self.rules
        moves_at = k.HEIGHTS + heights
        work = np.zeros(moves_at + (self.C + 2) * rules.max_moves, dtype=np.int64)
        cshift, vbits = self._layout if self._layout is not None else (0, 0)
        work[k.MAX_PLIES], work[k.NO_MOVES], work[k.MARGIN] = self.C, rules.no_moves, self.margin
        work[k.SYMMETRIC], work[k.MOVES_AT], work[k.ROW] = int(self.symmetry), moves_at, rules.max_moves
        work[k.KEY_BITS], work[k.CSHIFT], work[k.VBITS] = min(64, rules.key_bits), cshift, vbits
        work[k.VMAX] = self._largest
        self._work = work
        self._control = work[: k.CONTROL_SIZE]
        self._per_height = work[k.HEIGHTS : moves_at]
        self._set_mask()

    def _set_mask(self) -> None:
        """The table's mask and bucket bits in the work array."""
        k = self._kernel_module
        self._work[k.MASK] = self._mask
        self._work[k.SHIFT] = (self._mask + 1).bit_length() - 1 if self._mask >= 0 else 0

    name: EngineName = "compiled"

    @property
    def max_plies(self) -> int:
        return self.C

    def halt(self) -> None:
        """Make the search running now, and every later one, stop with :class:`SearchTimeout`
        (until :meth:`resume`); safe to call from another thread."""
        self._halted = True
        self._control[self._kernel_module.STOP] = HALTED

    def resume(self) -> None:
        """Let searches run again after :meth:`halt`."""
        self._halted = False

    def nodes_now(self) -> int:
        """Nodes counted so far, while a search runs too (for a live display in another thread)."""
        # (the kernel adds a search's nodes to NODES when it ends; the counts by height as it goes)
        running = int(self._per_height.sum()) if self._searching else 0
        return self.counters.nodes + running

    def keyf(self, state: State) -> Hashable:
        return self.game.key(state)

    def table_bytes(self) -> int:
        """The memory of the compiled table now."""
        return int(self._table.nbytes) if self._mask >= 0 else 0

    @property
    def entry_bytes(self) -> int:
        """Bytes of one entry of the compiled table: 8 compact, 32 for keys of two words."""
        return BYTES_PER_COMPILED_ENTRY if self._layout is None else BYTES_PER_COMPACT_ENTRY

    def table_counts(self) -> tuple[int, int, int]:
        """The table's probes, hits and stores so far."""
        return self.probes, self.hits, self.stores

    def table_fill(self) -> TableFill:
        """How full the compiled table is, counted over all of it (a few ms for 64 MB)."""
        if self._mask < 0:
            return TableFill(0, 0, 0)
        np, table = self._np, self._table
        if self._layout is not None:  # compact: an entry a word, 0 when empty
            return TableFill(int(np.count_nonzero(table)), len(table), self.entry_bytes)
        buckets = table.reshape(-1, self._kernel_module.BUCKET_WORDS)  # (two entries, their data words 2 and 5)
        used = int(np.count_nonzero(buckets[:, 2])) + int(np.count_nonzero(buckets[:, 5]))
        return TableFill(used, 2 * len(buckets), self.entry_bytes)

    def with_room(self, plies: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args)``: compiled code needs no room on Python's frame stack."""
        return function(*args, **kwargs)

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` whose side to move cannot win now."""
        if self.margin:
            return -self.margin
        return -win_score(self.C, p + 1) if self._win_now is not None else -win_score(self.C, p)

    def wins_now(self, state: State) -> bool:
        if self._win_now is None:
            return False
        a, b = self.rules.encode(state)
        return bool(self._win_now(self._g, self._np.uint64(a), self._np.uint64(b)))

    def exact(self, state: State, height: int = 0) -> float:
        return self.search(state, -math.inf, math.inf, height)

    def search(self, state: State, alpha: float, beta: float, height: int = 0) -> int:
        """The fail-soft value of ``state`` for the window ``(alpha, beta)`` (as :class:`Engine`'s)."""
        game, counters, C = self.game, self.counters, self.C
        p = game.ply(state)
        counters.grow(height + C - p + 1)
        out = game.outcome(state)
        if out is not None:
            counters.per_depth[height] += 1
            counters.terminals += 1
            if self.margin:
                return int(end_score(game, state) or 0)
            if out.winner is None:
                return 0
            magnitude = win_score(C, p - 1)
            return magnitude if out.winner == game.to_move(state) else -magnitude
        if self.wins_now(state):
            counters.per_depth[height] += 1
            return win_score(C, p)
        limit = self._kernel_module.SCORE_LIMIT
        low = -limit if alpha < -limit else math.floor(alpha)
        high = limit if beta > limit else math.ceil(beta)
        self._ready(p, height)
        a, b = self.rules.encode(state)
        u = self._np.uint64
        value = self._run(
            state, p, height, self.search_kernel, self._g, self._table, self._work, u(a), u(b), p, height, low, high, 0
        )
        return int(value)

    def narrow(self, state: State, lo: int, hi: int, direct: bool) -> int:
        """The exact score of ``state`` (not over, no win at once for its side to move, searched at
        height 0), known to lie in ``[lo, hi]``, by the null-window searches of
        :func:`gametree.search.exact.exact_score` run in compiled code (``direct``: the first
        probes straight against a draw); ``root.move`` afterwards a move proved to score at least it."""
        p = self.game.ply(state)
        self.counters.grow(self.C - p + 1)
        self._ready(p, 0)
        a, b = self.rules.encode(state)
        u = self._np.uint64
        table, work = self._table, self._work
        mode = 2 if direct else 1
        value = self._run(state, p, 0, self.search_kernel, self._g, table, work, u(a), u(b), p, 0, lo, hi, mode)
        return int(value)  # (_run set root.move)

    def reserve(self, plies: int) -> None:
        """Size the table now for searches up to ``plies`` deep (within its memory budget), as the
        deepest of them would grow it: for a batch whose deepest position is known, one table from
        the start instead of a larger one (every entry moved into it) each time a deeper position
        comes.  The searches' nodes are the same either way on Pons's sets (docs/performance-log.md)."""
        if self._mask + 1 < self._budget:
            self._grow(plies, populate=True)

    def _ready(self, p: int, height: int) -> None:
        """The table grown for a search at ply ``p`` (if it may grow), the work array long enough for
        its heights."""
        if self._mask + 1 < self._budget:
            self._grow(self.C - p)
        if len(self._per_height) < height + self.C - p + 2:
            self._work_array(height + self.C - p + 66)

    def _run(self, state: State, p: int, height: int, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)``, a compiled search of ``state`` at ply ``p`` and ``height``: the table and
        the work array made ready first (``args`` must name the current ones: the table is grown
        first, the work array is not replaced), its counts added to the engine's after, a stop
        request turned into :class:`SearchTimeout` or KeyboardInterrupt."""
        k = self._kernel_module
        if self._signals_before is not None:  # the first search
            if watch().count != self._signals_before:
                self._signals_before = None
                raise KeyboardInterrupt
            self._signals_before = None
        if len(self._per_height) < height + self.C - p + 2:
            raise RuntimeError("the work array was not made ready (see _ready)")
        control = self._control
        control[:] = 0
        control[k.ROOT_MOVE] = -1
        per_height = self._per_height
        try:
            with watch().stopping(functools.partial(control.__setitem__, k.STOP, 1)):  # (a signal sets 1)
                # Checked after the control was cleared: a halt from now on leaves its mark there.
                if self._halted:
                    raise SearchTimeout
                self._searching = True
                value = function(*args)
        finally:
            self._searching = False
            self._count(height, control, per_height)
        if control[k.STOP]:
            if control[k.STOP] == HALTED:
                raise SearchTimeout
            raise KeyboardInterrupt
        if height == 0:
            move = int(control[k.ROOT_MOVE])
            self.root.move = self.rules.decode_move(state, move) if move >= 0 else None
            self.root.improved = bool(control[k.ROOT_IMPROVED])
        return value

    def _grow(self, plies: int, populate: bool = False) -> None:
        """Make the table large enough for a search ``plies`` deep (see :data:`TABLE_PLIES_OFFSET`);
        ``populate``: its memory mapped at once (:func:`gametree.search.kernel.table_words`)."""
        extra, floor = (0, MIN_TABLE_BITS) if self._layout is None else (COMPACT_EXTRA_BITS, COMPACT_FLOOR_BITS)
        wanted = min(self._budget, 1 << max(floor, min(62, plies - TABLE_PLIES_OFFSET + extra)))
        if wanted <= self._mask + 1:
            return
        kernel = self._kernel_module
        if self._layout is None:
            table = kernel.table_words(wanted, populate=populate)
            if self._mask >= 0:
                self._compiled.rehash(self._table, table)
        else:
            table = kernel.table_words(wanted, kernel.COMPACT_BUCKET_WORDS, populate=populate)
            if self._mask >= 0:
                self._compiled.rehash_compact(self._table, table, (self._mask + 1).bit_length() - 1, self._layout[0])
        self._table, self._mask = table, wanted - 1
        self._set_mask()

    def _count(self, height: int, control: Any, per_height: Any) -> None:
        k = self._kernel_module
        counters = self.counters
        per_depth = counters.per_depth
        for h in per_height.nonzero()[0].tolist():
            per_depth[h] += int(per_height[h])
        per_height[:] = 0
        counters.terminals += int(control[k.TERMINALS])
        counters.cutoffs += int(control[k.CUTOFFS])
        self.probes += int(control[k.PROBES])
        self.hits += int(control[k.HITS])
        self.stores += int(control[k.STORES])
