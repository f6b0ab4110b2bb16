// Package replicabench measures what sharing an MCP server's legacy
// sessions on Redis costs a call: tools/call of add over Streamable HTTP
// (JSON responses) in one 2025-11-25 session, from 1, 16 and 64 callers,
// through the same client as mcpbench's BenchmarkToolsCallHTTP
// (mcpbench.DialHTTP), on a real redis-server this benchmark starts on a
// free loopback port (package ext/redis/redistest; it fails when there is
// no redis-server):
//
//   - impl=rpcgen: one replica, everything in memory (mcphttp's defaults);
//   - impl=rpcgen-proxy: the same replica behind the round-robin reverse
//     proxy of the three-replica rows, to tell the proxy's hop from Redis;
//   - impl=redis: one replica on Redis (ext/redis: SessionStore,
//     SharedEventStore, Bus);
//   - impl=redis-3: three replicas on Redis, each with its own client and
//     pub/sub connection, behind a round-robin reverse proxy
//     (net/http/httputil), which sends each request to the next replica.
//
// All run in this one process, on loopback. redis-rtt/op is the round trips
// to Redis per call, counted by a go-redis hook on every replica's client
// (a command or a pipeline is one); redis-cmds/op is what Redis itself
// executed per call (INFO commandstats, commands run inside scripts
// included). Both cover the whole timed run, so background work (keeping
// a busy session alive, a replica adopting a session it had not served)
// is in them. cpu-ns/op is the CPU time this process (client, proxy and
// replicas) spent per call, and redis-cpu-ns/op redis-server's (INFO cpu):
// unlike ns/op, neither grows when other processes take the cores, and
// their sum is what a call costs the machine. Every call's sum is checked.
package replicabench
