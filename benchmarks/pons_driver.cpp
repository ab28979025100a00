// gametree's driver for Pascal Pons's Connect Four solver (https://github.com/PascalPons/connect4).
//
// Our own code: it calls his Solver's public API (solve, getNodeCount) and is compiled together with his
// Solver.cpp by benchmarks/compare.py (`--pons SOURCE`), which fetches his sources at run time; his code is
// never copied into gametree.  No opening book is loaded and the transposition table is kept from one
// position to the next (his solver never clears it by itself), as his own c4solver program does.
//
// Input: one position a line on standard input ("MOVES" or "MOVES SCORE", columns 1-based; "-" is the
// empty board).
// Output: one line a position, "MOVES SCORE NODES MICROSECONDS": the score his solver gives, the nodes it
// explored for this position alone and the time of the solve call alone (steady clock), or "MOVES invalid"
// for a line his Position class does not accept (a wrong move, or a game already won).

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "Solver.hpp"

using GameSolver::Connect4::Position;
using GameSolver::Connect4::Solver;

int main() {
  std::ios::sync_with_stdio(false);
  static Solver solver;  // static: his table (2^24 entries) is too large for the stack
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream fields(line);
    std::string moves;
    if (!(fields >> moves)) continue;
    if (moves == "-") moves.clear();  // "-": the empty board (an empty line is skipped)
    Position position;
    if (position.play(moves) != moves.size()) {
      std::cout << moves << " invalid" << std::endl;
      continue;
    }
    const unsigned long long before = solver.getNodeCount();
    const auto start = std::chrono::steady_clock::now();
    const int score = solver.solve(position, false);
    const auto stop = std::chrono::steady_clock::now();
    const long long micros = std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
    std::cout << moves << ' ' << score << ' ' << (solver.getNodeCount() - before) << ' ' << micros / 1000.0
              << std::endl;
  }
  return 0;
}
