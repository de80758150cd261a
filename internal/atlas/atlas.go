// Package atlas reads what the Atlas Administration API (v2) knows of a
// cluster that mongobench measured: the process and disk measurements of
// the measured window, under the names the reference harness stored
// (SYSTEM_NORMALIZED_CPU_*, DISK_PARTITION_*), and the cluster's instance
// size, disk type, IOPS and size. Credentials come from the caller (the
// cli reads them from the environment or a file); they are never stored
// or printed. The response shapes are parsed by pure functions, tested on
// responses built from the API's documented shapes.
package atlas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mongodb-forks/digest"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
)

// DefaultBase is the Atlas API's address.
const DefaultBase = "https://cloud.mongodb.com"

// accept selects the versioned API whose shapes this package parses.
const accept = "application/vnd.atlas.2023-01-01+json"

// Credentials are a service account (ClientID and ClientSecret, OAuth 2
// client credentials) or a programmatic API key (PublicKey and PrivateKey,
// HTTP digest).
type Credentials struct {
	ClientID, ClientSecret string
	PublicKey, PrivateKey  string
}

// Check says what is wrong with incomplete credentials, naming no secret.
func (c Credentials) Check() error {
	switch {
	case c.ClientID != "" && c.ClientSecret != "":
		return nil
	case c.PublicKey != "" && c.PrivateKey != "":
		return nil
	case c.ClientID != "" || c.ClientSecret != "":
		return errors.New("a service account needs both its client id and its client secret")
	case c.PublicKey != "" || c.PrivateKey != "":
		return errors.New("an API key needs both its public and its private key")
	}
	return errors.New("no Atlas credentials: give a service account or an API key")
}

// Client calls the Atlas API with one set of credentials.
type Client struct {
	base string
	hc   *http.Client
}

// New returns a client of the API at base (DefaultBase when empty).
func New(ctx context.Context, base string, c Credentials) (*Client, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if base == "" {
		base = DefaultBase
	}
	base = strings.TrimRight(base, "/")
	var hc *http.Client
	if c.ClientID != "" {
		cc := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: base + "/api/oauth/token"}
		hc = cc.Client(ctx)
	} else {
		var err error
		if hc, err = digest.NewTransport(c.PublicKey, c.PrivateKey).Client(); err != nil {
			return nil, fmt.Errorf("atlas API key: %w", err)
		}
	}
	hc.Timeout = 30 * time.Second
	return &Client{base: base, hc: hc}, nil
}

// get fetches path with query and returns the body of a 200 answer.
func (c *Client) get(ctx context.Context, path string, query url.Values) ([]byte, error) {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("atlas %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }() // read in full below
	body, err := bounded.ReadAll(resp.Body, "the answer", bounded.AtlasAnswer)
	if err != nil {
		return nil, fmt.Errorf("atlas %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, apiError(path, resp.StatusCode, body)
	}
	return body, nil
}

// apiError reads the API's error document: {error, errorCode, detail}.
func apiError(path string, status int, body []byte) error {
	var e struct {
		ErrorCode string `json:"errorCode"`
		Detail    string `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil && e.ErrorCode != "" {
		return &Error{Path: path, Status: status, Code: e.ErrorCode, Detail: e.Detail}
	}
	return &Error{Path: path, Status: status}
}

// Error is an answer of the API other than 200.
type Error struct {
	Path   string
	Status int
	Code   string // the API's errorCode, such as INVALID_GRANULARITY
	Detail string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("atlas %s: HTTP %d", e.Path, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Window is the part of the measurements asked for.
type Window struct {
	Start, End  time.Time
	Granularity string // ISO 8601: PT10S, PT1M, PT5M, PT1H, P1D
}

func (w Window) query(names []string) url.Values {
	q := url.Values{}
	q.Set("granularity", w.Granularity)
	q.Set("start", w.Start.UTC().Format(time.RFC3339))
	q.Set("end", w.End.UTC().Format(time.RFC3339))
	for _, n := range names {
		q.Add("m", n)
	}
	return q
}

// ProcessNames are the process measurements mongobench stores.
var ProcessNames = []string{
	result.CPUUser, result.CPUKernel, result.CPUIOWait,
	result.ProcessCPUUser, result.ProcessCPUKernel,
	result.OpTimeReads, result.OpTimeWrites,
}

// DiskNames are the disk measurements mongobench stores.
var DiskNames = []string{result.DiskIOPS, result.DiskReadBytes, result.DiskWriteBytes}

// ProcessMeasurements returns the process's measurements in w. process is
// the host and port Atlas names it by, such as
// cluster0-shard-00-01.ab1cd.mongodb.net:27017.
func (c *Client) ProcessMeasurements(ctx context.Context, project, process string, w Window) (Measurements, error) {
	body, err := c.get(ctx, "/api/atlas/v2/groups/"+url.PathEscape(project)+"/processes/"+url.PathEscape(process)+"/measurements", w.query(ProcessNames))
	if err != nil {
		return Measurements{}, err
	}
	return ParseMeasurements(body)
}

// Partitions lists the process's disk partitions.
func (c *Client) Partitions(ctx context.Context, project, process string) ([]string, error) {
	body, err := c.get(ctx, "/api/atlas/v2/groups/"+url.PathEscape(project)+"/processes/"+url.PathEscape(process)+"/disks", nil)
	if err != nil {
		return nil, err
	}
	return ParsePartitions(body)
}

// DiskMeasurements returns a partition's measurements in w.
func (c *Client) DiskMeasurements(ctx context.Context, project, process, partition string, w Window) (Measurements, error) {
	body, err := c.get(ctx, "/api/atlas/v2/groups/"+url.PathEscape(project)+"/processes/"+url.PathEscape(process)+
		"/disks/"+url.PathEscape(partition)+"/measurements", w.query(DiskNames))
	if err != nil {
		return Measurements{}, err
	}
	return ParseMeasurements(body)
}

// Cluster returns what the cluster's description says of its hardware.
func (c *Client) Cluster(ctx context.Context, project, cluster string) (result.Instance, error) {
	body, err := c.get(ctx, "/api/atlas/v2/groups/"+url.PathEscape(project)+"/clusters/"+url.PathEscape(cluster), nil)
	if err != nil {
		return result.Instance{}, err
	}
	return ParseCluster(body)
}
