package workload

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
)

// Client paths of a workload's operations: the lean wire client
// (internal/wire) or the driver.
const (
	ClientWire   = "wire"
	ClientDriver = "driver"
)

// ClientParam declares the client choice of the single-operation
// workloads (kv, insert, hotdoc, updateapi, query).
var ClientParam = spec.ParamSpec{Name: "client", Kind: spec.KindEnum, Default: ClientWire,
	Values: []string{ClientWire, ClientDriver},
	Help: "the client of the measured operations: wire (lean OP_MSG client; each operation times out after the URI's timeoutMS, " +
		"else socketTimeoutMS, else 30s; the driver when the connection string needs what it lacks) or driver"}

// Client is which client a run's operations use.
type Client struct {
	Path string       // ClientWire or ClientDriver
	Opts wire.Options // for ClientWire
	Why  string       // why the driver runs when the wire client was asked for
}

// ChooseClient decides a run's client from the connection string and the
// client asked for: the wire client when asked for (or by default) and
// the connection string allows it, else the driver, saying why when the
// wire client was asked for.
func ChooseClient(uri, asked string) Client {
	c := Client{Path: ClientDriver}
	if asked != "" && asked != ClientWire {
		return c
	}
	switch opts, err := wire.Parse(uri); {
	case uri == "":
		c.Why = "no connection string for the wire client"
	case err != nil:
		c.Why = fmt.Sprintf("the wire client cannot use this connection string (%v)", err)
	default:
		c.Path, c.Opts = ClientWire, opts
	}
	return c
}

// clientSettings are the effective settings of a run whose setup decides
// only its client: test_config.client, the path its operations took.
type clientSettings struct {
	Client string `bson:"client"`
}

// Decided is what a run of the named workload decided about its client:
// test_config.client, and a warning when the driver runs in place of the
// wire client.
func (c Client) Decided(workload string) Decisions {
	return Decisions{Settings: clientSettings{Client: c.Path}, Warnings: c.warnings(workload)}
}

func (c Client) warnings(workload string) []string {
	if c.Why == "" {
		return nil
	}
	return []string{workload + ": " + c.Why + "; the driver runs the operations"}
}

// dial opens one worker's wire connection, or returns nil on the driver
// path.
func (c Client) dial(ctx context.Context, db, coll string) (*wireColl, error) {
	if c.Path != ClientWire {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*c.Opts.ConnectTimeout)
	defer cancel()
	conn, err := wire.Dial(ctx, c.Opts)
	if err != nil {
		return nil, fmt.Errorf("wire client: %w", err)
	}
	return &wireColl{conn: conn, db: db, coll: coll}, nil
}

// closeWire closes a task's wire connection, if it has one.
func closeWire(w *wireColl) error {
	if w == nil {
		return nil
	}
	return w.Close()
}

// clientRun is the Run of a workload whose workers share nothing but the
// client choice (parameter client): newTask makes each worker's task.
func clientRun(env Env, p spec.Params, workload string, newTask func(context.Context, Env, spec.Params, Client, int) (engine.Task, error)) Run {
	c := ChooseClient(env.URI, p.String("client"))
	return Run{Decided: c.Decided(workload), Tasks: TasksFunc(func(ctx context.Context, worker int) (engine.Task, error) {
		return newTask(ctx, env, p, c, worker)
	})}
}
