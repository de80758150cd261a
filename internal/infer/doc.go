// Package infer models a collection from a sample of its documents and
// writes the model as an editable workload file (package workloadfile)
// whose seeded documents match the sample: per path, the BSON types and
// their shares, the share of documents holding it (absent fields as
// !maybe), numeric and date ranges, string lengths and recognisable
// kinds (emails, UUID and ObjectId strings, dates as text, …), array
// lengths and sub-documents; documents of different shapes (top-level
// fields) are kept apart, each shape its share of the seed, so the size
// distribution follows the sample's. It also clones a sample: seed
// documents copied from it, each with a fresh _id.
//
// The package is pure: it reads BSON with the driver's bson package and
// talks to no server (workload.Sample draws the sample).
package infer
