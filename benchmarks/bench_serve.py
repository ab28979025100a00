"""A bounded load test of ``gametree serve`` on loopback (issue 35): many pages asking for analysis at once.

    python benchmarks/bench_serve.py                       # 50 analyses at once, 2 s budget each
    python benchmarks/bench_serve.py --requests 5 --budget 0.5 --json   # (the smoke test's run)

Starts ``gametree serve --no-store`` on a free port (or uses ``--url``), then sends ``--requests``
``POST /api/analyse`` requests at once, each for a different position (Connect Four 7x6 openings,
which no search proves within a few seconds, beside 4x4 boards it proves at once), while a probe
asks ``GET /health`` every 20 ms.  It reports each analysis's time against its budget (the
acceptance: every one answered within budget + 1 s), how each was answered (proven by a search,
best guess, out of time, server busy) and the health route's latencies (acceptance: under 100 ms
throughout).  A fixed Python loop timed before and after the runs (:mod:`machine`) shows whether
the machine was in a slow spell.  Figures are printed, never asserted (tests/test_bench_smoke.py
checks the run and its accounting on a small case).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import http.client
import json
import multiprocessing
import multiprocessing.queues
import multiprocessing.synchronize
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from machine import report as machine_report

#: Seconds between health probes.
PROBE_EVERY = 0.02


def positions(count: int) -> list[dict[str, object]]:
    """``count`` different positions: 7x6 Connect Four after two to four moves (hard), every fifth a 4x4 board."""
    found: list[dict[str, object]] = []
    columns = "1234567"
    for a in columns:
        for b in columns:
            for c in columns:
                found.append({"game": "connect4", "moves": f"{a} {b} {c}"})
    small = [
        {"game": "connect4", "options": {"width": 4, "height": 4}, "moves": f"{a} {b}"} for a in "1234" for b in "1234"
    ]
    mixed = []
    for i in range(count):
        mixed.append(small[i % len(small)] if i % 5 == 4 else found[(i * 37) % len(found)])
    return mixed


def start_server(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "gametree", "serve", "--port", str(port), "--no-store", "--workers", str(workers)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gametree serve ended: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=1) as answer:
                if json.load(answer)["workers"] >= workers:  # (its workers started: the server is ready)
                    return process, url
        except OSError:
            pass
        time.sleep(0.1)
    process.terminate()
    raise SystemExit("gametree serve did not answer within 60 s")


def probe(
    url: str, stop: multiprocessing.synchronize.Event, out: multiprocessing.queues.Queue[list[tuple[float, float]]]
) -> None:
    """``GET /health`` every :data:`PROBE_EVERY` seconds until ``stop``, from a process of its own (the
    load's client would delay its own probes otherwise); the latencies go to ``out``."""
    address = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    latencies = []
    while not stop.is_set():
        started = time.perf_counter()
        connection.request("GET", "/health")
        answer = connection.getresponse()
        answer.read()
        latencies.append((time.perf_counter() - started, started))
        if answer.status != 200:
            raise SystemExit(f"health answered {answer.status}")
        time.sleep(PROBE_EVERY)
    out.put(latencies)


async def load(url: str, requests: int, budget: float) -> list[tuple[float, str, int]]:
    import httpx

    limits = httpx.Limits(max_connections=requests + 4)
    async with httpx.AsyncClient(base_url=url, timeout=budget + 30, limits=limits) as client:

        async def analyse(body: dict[str, object]) -> tuple[float, str, int]:
            started = time.perf_counter()
            answer = await client.post("/api/analyse", json={**body, "budget": budget})
            seconds = time.perf_counter() - started
            source = answer.json().get("source", "error") if answer.status_code == 200 else f"http {answer.status_code}"
            return seconds, str(source), answer.status_code

        return await asyncio.gather(*(analyse(body) for body in positions(requests)))


def run(url: str, requests: int, budget: float) -> dict[str, object]:
    """The load and the health probe, and their figures."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    out: multiprocessing.queues.Queue[list[tuple[float, float]]] = context.Queue()
    prober = context.Process(target=probe, args=(url, stop, out), daemon=True)
    prober.start()
    time.sleep(0.5)  # (the probe's first requests before the load)
    started = time.perf_counter()
    answers = asyncio.run(load(url, requests, budget))
    wall = time.perf_counter() - started
    time.sleep(0.5)
    stop.set()
    probes = out.get(timeout=30)
    health = sorted(latency for latency, _ in probes)
    slow = [(round(1000 * latency), round(at - started, 2)) for latency, at in probes if latency > 0.1]
    prober.join(10)
    times = sorted(a[0] for a in answers)
    late = [t for t in times if t > budget + 1.0]
    return {
        "requests": requests,
        "budget": budget,
        "answered": sum(a[2] == 200 for a in answers),
        "sources": dict(collections.Counter(a[1] for a in answers)),
        "slowest": round(times[-1], 3),
        "median": round(times[len(times) // 2], 3),
        "late": len(late),
        "wall": round(wall, 3),
        "health_probes": len(health),
        "health_max_ms": round(1000 * health[-1], 1) if health else None,
        "health_p99_ms": round(1000 * health[int(0.99 * (len(health) - 1))], 1) if health else None,
        "health_over_100ms": sum(h > 0.1 for h in health),
        "health_slow_at": slow,  # (ms, seconds since the load began)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=50, help="analyses sent at once [50]")
    parser.add_argument("--budget", type=float, default=2.0, help="each analysis's budget in seconds [2]")
    parser.add_argument("--workers", type=int, default=4, help="the server's search workers [4]")
    parser.add_argument("--url", default=None, help="a running server's address (default: start one)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line only")
    args = parser.parse_args()
    if not args.json:
        print(machine_report("before the runs"))
    process = None
    url = args.url
    if url is None:
        process, url = start_server(args.workers)
    try:
        figures = run(url, args.requests, args.budget)
    finally:
        if process is not None:
            process.terminate()
            process.wait(10)
    if args.json:
        print(json.dumps(figures))
        return
    print(
        f"{figures['requests']} analyses at once, {figures['budget']:g} s budget, {args.workers} workers, "
        f"cpus {os.cpu_count()}: {figures['answered']} answered, slowest {figures['slowest']} s, "
        f"median {figures['median']} s, {figures['late']} later than budget + 1 s; "
        f"answered as {figures['sources']}"
    )
    print(
        f"health: {figures['health_probes']} probes, max {figures['health_max_ms']} ms, "
        f"p99 {figures['health_p99_ms']} ms, {figures['health_over_100ms']} over 100 ms "
        f"(ms, s into the load: {figures['health_slow_at']})"
    )
    print(machine_report("after the runs"))


if __name__ == "__main__":
    main()
