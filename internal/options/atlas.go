package options

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/atlas"
	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
)

// Atlas says which Atlas cluster a run measures, so that its host figures
// and instance fields come from the Atlas API. The credentials are never
// a flag: a file (--atlas-credentials) or the environment.
type Atlas struct {
	Project, Cluster, Process, Credentials string
	Wait                                   time.Duration
}

func (f *Atlas) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.Project, "atlas-project", "", "Atlas project (group) id of the cluster measured: host CPU and disk and the instance fields come from the Atlas API after the run")
	fl.StringVar(&f.Cluster, "atlas-cluster", "", "with --atlas-project: the cluster's name")
	fl.StringVar(&f.Process, "atlas-process", "", "with --atlas-project: the node measured, host:port as Atlas names it (default: the host serverStatus names)")
	fl.StringVar(&f.Credentials, "atlas-credentials", "", "JSON file with an Atlas service account {clientId, clientSecret} or API key {publicKey, privateKey} (default: $MONGODB_ATLAS_CLIENT_ID and $MONGODB_ATLAS_CLIENT_SECRET, else $MONGODB_ATLAS_PUBLIC_API_KEY and $MONGODB_ATLAS_PRIVATE_API_KEY)")
	fl.DurationVar(&f.Wait, "atlas-wait", 5*time.Minute, "with --atlas-project: how long to wait after the run for Atlas's measurements, which arrive minutes late")
}

// source returns the Atlas source the flags describe, nil when they name
// no project.
func (f Atlas) source(ctx context.Context, env Env) (*runner.AtlasSource, error) {
	if f.Project == "" {
		if f.Cluster != "" || f.Process != "" || f.Credentials != "" {
			return nil, errors.New("--atlas-cluster, --atlas-process and --atlas-credentials need --atlas-project")
		}
		return nil, nil
	}
	if f.Cluster == "" {
		return nil, errors.New("--atlas-project: give the cluster's name with --atlas-cluster")
	}
	if f.Wait < 0 {
		return nil, fmt.Errorf("--atlas-wait: got %v, want a duration >= 0", f.Wait)
	}
	cred, err := atlasCredentials(f.Credentials, env)
	if err != nil {
		return nil, err
	}
	c, err := atlas.New(ctx, env("MONGOBENCH_ATLAS_BASE_URL"), cred)
	if err != nil {
		return nil, err
	}
	return &runner.AtlasSource{Client: c, Project: f.Project, Cluster: f.Cluster, Process: f.Process, Wait: f.Wait, Poll: 15 * time.Second}, nil
}

// atlasCredentials reads the credentials from file, else the environment,
// and remembers their secrets so nothing printed shows them.
func atlasCredentials(file string, env Env) (atlas.Credentials, error) {
	var c atlas.Credentials
	if file != "" {
		b, err := bounded.ReadFile(file, bounded.Credentials)
		if err != nil {
			return c, fmt.Errorf("--atlas-credentials: %w", err)
		}
		var doc struct {
			ClientID     string `json:"clientId"`
			ClientSecret string `json:"clientSecret"`
			PublicKey    string `json:"publicKey"`
			PrivateKey   string `json:"privateKey"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return c, fmt.Errorf("--atlas-credentials: %s is not a JSON document with clientId and clientSecret, or publicKey and privateKey: %w", file, err)
		}
		c = atlas.Credentials{ClientID: doc.ClientID, ClientSecret: doc.ClientSecret, PublicKey: doc.PublicKey, PrivateKey: doc.PrivateKey}
	} else {
		c = atlas.Credentials{
			ClientID: env("MONGODB_ATLAS_CLIENT_ID"), ClientSecret: env("MONGODB_ATLAS_CLIENT_SECRET"),
			PublicKey: env("MONGODB_ATLAS_PUBLIC_API_KEY"), PrivateKey: env("MONGODB_ATLAS_PRIVATE_API_KEY"),
		}
	}
	secret.RememberToken(c.ClientSecret, c.PrivateKey)
	if err := c.Check(); err != nil {
		where := "the environment ($MONGODB_ATLAS_CLIENT_ID/$MONGODB_ATLAS_CLIENT_SECRET or $MONGODB_ATLAS_PUBLIC_API_KEY/$MONGODB_ATLAS_PRIVATE_API_KEY)"
		if file != "" {
			where = file
		}
		return c, fmt.Errorf("--atlas-project: %w (from %s)", err, where)
	}
	return c, nil
}
