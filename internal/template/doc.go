// Package template renders report templates: Markdown documents with
// MONGO_TABLE blocks, each an HTML comment holding a JSON object that names
// a collection, an aggregation pipeline, the output columns and their
// headers:
//
//	<!-- MONGO_TABLE:
//	{
//	  "collection": "results",
//	  "pipeline": [ {"$match": {"_id.testname": "insert_docsize"}}, {"$sort": {"_id.order": 1}} ],
//	  "columns": ["docSizeKB", "DocsPerSecond"],
//	  "headers": ["Document Size (KB)", "Speed (docs/s)"]
//	}
//	-->
//
// Render keeps every block and writes its Markdown table right after it,
// closed by an end marker (<!-- /MONGO_TABLE -->). Rendering a rendered
// document again replaces the old table, so a report can be refreshed in
// place. Blocks inside fenced code are left alone. A column that no output
// document has is a column of empty cells with a note under its table
// (Options.Strict makes it an error); a block that fails is noted in place
// of its table (Options.KeepGoing) or stops the rendering.
//
// A template only reads: Parse refuses a block whose pipeline writes
// ($out, $merge) or runs server-side JavaScript ($where, $function,
// $accumulator), at any depth (CheckPipeline).
//
// The package is pure: pipelines run through a Source that the caller
// provides (internal/store's Mongo runs them on the results database).
// Pipelines stay raw JSON bytes because stage and key order matter
// ($sort) and Go maps lose it.
package template
