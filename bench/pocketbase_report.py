"""Summarises bench/pocketbase.sh's rounds as a Markdown table: per case and server the rounds'
req/s, the median, median p99, server CPU per request (and its user and system shares) and wrk's
CPU per request; and the ratio Cumulus / PocketBase
taken within each round (both ran back to back), with its median.

Usage: python3 pocketbase_report.py SUMMARY.tsv DURATION_SECONDS POCKETBASE_VERSION
"""
import csv
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
duration = float(sys.argv[2])
version = sys.argv[3]
cases = {"read": "read one record by id", "query": "indexed equality query, one record",
         "create": "create one record"}


def cost_us(row, column="server_cpu_s"):
    return float(row[column]) / (float(row["requests_per_s"]) * duration) * 1e6


def split(picked):
    """Median user and system CPU per request; absent from summaries made before they were recorded."""
    if not all(r.get("server_user_s") for r in picked):
        return "—"
    user = statistics.median(cost_us(r, "server_user_s") for r in picked)
    system = statistics.median(cost_us(r, "server_system_s") for r in picked)
    return f"{user:,.0f} · {system:,.0f} µs"


print(f"| request | server | rounds: req/s (other work's CPU %) | median req/s | median p99 | server CPU per request "
      f"| of it user · system | wrk's CPU per request |")
print("|---|---|---|---|---|---|---|---|")
ratios = {}
for case, name in cases.items():
    by_server = {}
    for server in ("cumulus", "pocketbase"):
        picked = [r for r in rows if r["case"] == case and r["server"] == server]
        if not picked:
            continue
        by_server[server] = {r["round"]: r for r in picked}
        rounds = " / ".join(f"{float(r['requests_per_s']):,.0f} ({r['foreign_cpu_pct']}%)" for r in picked)
        label = "Cumulus" if server == "cumulus" else f"PocketBase {version}"
        print(f"| {name} | {label} | {rounds} | **{statistics.median(float(r['requests_per_s']) for r in picked):,.0f}** "
              f"| {statistics.median(float(r['p99_ms']) for r in picked):.2f} ms | {statistics.median(cost_us(r) for r in picked):,.0f} µs "
              f"| {split(picked)} | {statistics.median(cost_us(r, 'wrk_cpu_s') for r in picked):,.1f} µs |")
    if len(by_server) == 2:
        common = sorted(set(by_server["cumulus"]) & set(by_server["pocketbase"]), key=int)
        ratios[case] = [(float(by_server["cumulus"][k]["requests_per_s"]) / float(by_server["pocketbase"][k]["requests_per_s"]),
                         cost_us(by_server["pocketbase"][k]) / cost_us(by_server["cumulus"][k])) for k in common]
print()
print("| request | Cumulus ÷ PocketBase, req/s, per round | median | PocketBase ÷ Cumulus, CPU per request, median |")
print("|---|---|---|---|")
for case, pairs in ratios.items():
    print(f"| {cases[case]} | {' / '.join(f'{r:.2f}×' for r, _ in pairs)} | **{statistics.median(r for r, _ in pairs):.2f}×** "
          f"| {statistics.median(c for _, c in pairs):.2f}× |")
