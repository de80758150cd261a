package result

// Replay is what a run that replayed a traffic recording stores beside
// its operation types (one a query shape, named "S3 find shop.orders"):
// the recording, the speed, what was not replayed and why, what was
// changed to replay it, and per shape the recording's own figures
// against the replay's.
type Replay struct {
	Recording string  `bson:"recording" json:"recording"`
	Layout    string  `bson:"layout" json:"layout"`
	Speed     float64 `bson:"speed" json:"speed"`
	// Connections are the recorded connections replayed, each on a
	// connection of its own; Requests the requests planned.
	Connections int   `bson:"connections" json:"connections"`
	Requests    int64 `bson:"requests" json:"requests"`
	// SpanMs is the recording's span, first request to last;
	// RecordedRate its requests per second over it.
	SpanMs       float64  `bson:"spanMs" json:"spanMs"`
	RecordedRate *float64 `bson:"recordedRate,omitempty" json:"recordedRate,omitempty"`
	// Skipped are the recorded requests not replayed, by reason.
	Skipped []ReplaySkip `bson:"skipped,omitempty" json:"skipped,omitempty"`
	Mapped  ReplayMapped `bson:"mapped" json:"mapped"`
	// MapNS are the namespace rules applied (--map-ns).
	MapNS       []string      `bson:"mapNs,omitempty" json:"mapNs,omitempty"`
	AllowWrites bool          `bson:"allowWrites" json:"allowWrites"`
	Shapes      []ReplayShape `bson:"shapes" json:"shapes"`
}

// ReplaySkip is a number of recorded requests not replayed, and why.
type ReplaySkip struct {
	Reason string `bson:"reason" json:"reason"`
	Count  int64  `bson:"count" json:"count"`
}

// ReplayMapped counts what the replay changed in the requests it sent.
type ReplayMapped struct {
	Cursors           int64 `bson:"cursors" json:"cursors"`
	CursorsGone       int64 `bson:"cursorsGone" json:"cursorsGone"`
	Sessions          int64 `bson:"sessions" json:"sessions"`
	TxnNumbers        int64 `bson:"txnNumbers" json:"txnNumbers"`
	ClusterTimes      int64 `bson:"clusterTimes" json:"clusterTimes"`
	AfterClusterTimes int64 `bson:"afterClusterTimes" json:"afterClusterTimes"`
	Namespaces        int64 `bson:"namespaces" json:"namespaces"`
}

// ReplayShape is a query shape of the recording: its operation type in
// the run (Op, in ops[]), its requests and share, the recording's
// latency (request to reply) and documents returned against the
// replay's.
type ReplayShape struct {
	Op        string  `bson:"op" json:"op"`
	Shape     string  `bson:"shape" json:"shape"`
	Command   string  `bson:"command" json:"command"`
	Namespace string  `bson:"namespace" json:"namespace"`
	Requests  int64   `bson:"requests" json:"requests"`
	Share     float64 `bson:"share" json:"share"`
	Write     bool    `bson:"write,omitempty" json:"write,omitempty"`
	// Recorded is the recording's latency of the shape's answered
	// requests; RecordedFailed its replies that said ok: 0.
	Recorded       Dist  `bson:"recorded" json:"recorded"`
	RecordedFailed int64 `bson:"recordedFailed" json:"recordedFailed"`
	// RecordedDocs and ReplayedDocs are the documents the shape's
	// replies returned in their cursors' batches; absent when its
	// replies carry no cursor.
	RecordedDocs *int64 `bson:"recordedDocs,omitempty" json:"recordedDocs,omitempty"`
	ReplayedDocs *int64 `bson:"replayedDocs,omitempty" json:"replayedDocs,omitempty"`
	// Sent is the shape's requests sent to the candidate.
	Sent int64 `bson:"sent" json:"sent"`
	// Plan is the candidate's winning plan of the shape (--explain), as
	// extended JSON; absent when not asked for.
	Plan string `bson:"plan,omitempty" json:"plan,omitempty"`
}
