package atlas

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// Measurements is one measurements answer: its granularity and window, and
// its series, each marked as coming from Atlas at that granularity.
type Measurements struct {
	Granularity time.Duration
	Start, End  time.Time
	Series      []result.Series
}

// ParseMeasurements reads a process or disk measurements answer:
// {granularity, start, end, measurements: [{name, units, dataPoints:
// [{timestamp, value}]}]}. A null value stays missing.
func ParseMeasurements(body []byte) (Measurements, error) {
	var doc struct {
		Granularity  string    `json:"granularity"`
		Start        time.Time `json:"start"`
		End          time.Time `json:"end"`
		Measurements []struct {
			Name       string `json:"name"`
			Units      string `json:"units"`
			DataPoints []struct {
				Timestamp time.Time `json:"timestamp"`
				Value     *float64  `json:"value"`
			} `json:"dataPoints"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return Measurements{}, fmt.Errorf("atlas measurements: %w", err)
	}
	g, err := ParseGranularity(doc.Granularity)
	if err != nil {
		return Measurements{}, err
	}
	m := Measurements{Granularity: g, Start: doc.Start, End: doc.End}
	for _, s := range doc.Measurements {
		out := result.Series{Name: s.Name, Units: s.Units, Source: "atlas", GranularitySec: g.Seconds(),
			DataPoints: make([]result.DataPoint, 0, len(s.DataPoints))}
		for _, p := range s.DataPoints {
			out.DataPoints = append(out.DataPoints, result.DataPoint{Timestamp: p.Timestamp, Value: p.Value})
		}
		m.Series = append(m.Series, out)
	}
	return m, nil
}

// ParseGranularity reads the ISO 8601 durations the API uses: PT10S,
// PT1M, PT5M, PT1H, P1D.
func ParseGranularity(s string) (time.Duration, error) {
	switch s {
	case "PT10S":
		return 10 * time.Second, nil
	case "PT1M":
		return time.Minute, nil
	case "PT5M":
		return 5 * time.Minute, nil
	case "PT1H":
		return time.Hour, nil
	case "P1D":
		return 24 * time.Hour, nil
	}
	return 0, fmt.Errorf("atlas measurements: granularity %q is not one of PT10S, PT1M, PT5M, PT1H, P1D", s)
}

// ParsePartitions reads a disks answer: {results: [{partitionName}]}.
func ParsePartitions(body []byte) ([]string, error) {
	var doc struct {
		Results []struct {
			PartitionName string `json:"partitionName"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("atlas disks: %w", err)
	}
	var names []string
	for _, r := range doc.Results {
		names = append(names, r.PartitionName)
	}
	return names, nil
}

// ParseCluster reads a cluster's description: the electable nodes'
// instance size, disk IOPS and volume type of its first region, and the
// disk size (at the top level, or per node in later API versions).
func ParseCluster(body []byte) (result.Instance, error) {
	type specs struct {
		InstanceSize  string   `json:"instanceSize"`
		DiskIOPS      int64    `json:"diskIOPS"`
		EBSVolumeType string   `json:"ebsVolumeType"`
		DiskSizeGB    *float64 `json:"diskSizeGB"`
	}
	var doc struct {
		DiskSizeGB       *float64 `json:"diskSizeGB"`
		ReplicationSpecs []struct {
			RegionConfigs []struct {
				ProviderName   string `json:"providerName"`
				ElectableSpecs specs  `json:"electableSpecs"`
			} `json:"regionConfigs"`
		} `json:"replicationSpecs"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return result.Instance{}, fmt.Errorf("atlas cluster: %w", err)
	}
	var in result.Instance
	if len(doc.ReplicationSpecs) == 0 || len(doc.ReplicationSpecs[0].RegionConfigs) == 0 {
		return in, fmt.Errorf("atlas cluster: no replicationSpecs[0].regionConfigs[0] in the description")
	}
	rc := doc.ReplicationSpecs[0].RegionConfigs[0]
	es := rc.ElectableSpecs
	in.AtlasInstanceType = es.InstanceSize
	in.AtlasIOPS = es.DiskIOPS
	in.AtlasDiskType = diskType(rc.ProviderName, es.EBSVolumeType)
	switch {
	case es.DiskSizeGB != nil:
		in.AtlasDiskSizeGB = *es.DiskSizeGB
	case doc.DiskSizeGB != nil:
		in.AtlasDiskSizeGB = *doc.DiskSizeGB
	}
	return in, nil
}

// diskType is the volume type as the API gives it (AWS: STANDARD or
// PROVISIONED), or the provider's name where it gives none.
func diskType(provider, ebs string) string {
	if ebs == "" {
		return provider
	}
	return ebs
}
