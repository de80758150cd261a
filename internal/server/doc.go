// Package server starts, stops and tracks a local MongoDB-compatible server
// for the demo run and the integration tests.
//
// Env.Find picks the binary: the one $MONGOBENCH_SERVER_BIN names, else a
// real mongod on PATH (started as the one-node replica set rs0 so
// transactions work), else the pinned SecantusDB build that
// scripts/install-server.sh puts in the cache. Start runs it in a
// directory the tool owns (data, logs and a server.json state file), waits
// until it answers hello, and returns a Handle. The state file lets a later
// process Load the Handle back, check whether it is Running and Stop it, so
// `mongobench server start|stop|status` works across invocations.
//
// Layout of the directory:
//
//	Dir/server.json    state: pid, port, uri, kind, data dir, start time
//	Dir/server.log     the server's stdout and stderr
//	Dir/mongod.log     mongod's own log (mongod only)
//	Dir/secantusd.toml an empty config that pins SecantusDB to its flags
//	Dir/data/          the storage directory
//
// The package never prints, never exits and never reads the environment:
// cli hands it an Env (EnvFrom(os.Getenv)). Errors are returned wrapped.
package server
