// Package ftdc reads MongoDB's full-time diagnostic data capture files,
// the metrics.* files a mongod or mongos keeps in its diagnostic.data
// directory: one sample of serverStatus, replSetGetStatus, the oplog's
// stats and the host's systemMetrics per second, for weeks.
//
// A file is a sequence of BSON documents {_id: Date, type: N, ...}:
//
//   - type 0, metadata: doc is a document written when the file opens
//     (buildInfo, getCmdLineOpts, hostInfo, …);
//   - type 1, a metric chunk: data is BinData holding a little-endian
//     uint32 (the uncompressed length) then zlib-compressed bytes: the
//     chunk's reference sample as a BSON document, a uint32 metric count,
//     a uint32 sample count (the samples after the reference), then the
//     deltas of every metric across those samples, metric by metric
//     (column-major), each an unsigned varint, a run of zeros written as
//     a 0 followed by the run's length minus one. A run of zeros carries
//     over from one metric's column into the next;
//   - type 2, periodic metadata: index counts the deltas since the last
//     full document (0: doc is complete); a delta doc holds start and end
//     and, for each collector whose fields changed, its start, end and
//     the changed fields only.
//
// The metrics of a sample are the numbers of its document in depth-first
// order: every double, int32, int64 and decimal (as the server stores
// them: truncated to an int64), bool, date (milliseconds since the epoch)
// and timestamp (two metrics: seconds, then increment), arrays
// included. Duplicate field names are kept in order, as separate
// metrics. A metrics.interim file holds the samples not yet in an
// archive file and ends with a zero-length sentinel.
//
// The reference is the server's src/mongo/db/ftdc: compressor.cpp,
// decompressor.cpp, util.cpp (extraction and reconstruction),
// metadata_compressor.cpp and file_reader.cpp. Where that folder's
// README differs (it gives the counts in the other order and a zero run
// as its full length), the code is followed.
//
// The package reads files and decodes; it talks to no server. It uses
// the Go driver's bson package for BSON values only.
package ftdc
