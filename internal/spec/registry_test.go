package spec

// testReg is the registry the tests parse against.
var testReg = MapRegistry{
	"kv": {
		{Name: "records", Kind: KindInt, Default: "1000", Min: "1", Max: "100000000", Help: "documents loaded"},
		{Name: "docSize", Kind: KindSize, Default: "1KB", Min: "16B", Max: "16MB"},
		{Name: "readPercent", Kind: KindPercent, Default: "50"},
		{Name: "mode", Kind: KindEnum, Values: []string{"insert", "upsert"}},
		{Name: "think", Kind: KindDuration, Default: "0s", Max: "1m"},
		{Name: "ordered", Kind: KindBool, Default: "true"},
		{Name: "skew", Kind: KindFloat, Default: "0.99", Min: "0"},
		{Name: "collection", Kind: KindString, Default: "usertable"},
	},
	"ycsb": nil,
}

// kvDefaults are the kv parameters with nothing given.
func kvDefaults() Params {
	return Params{
		"records": int64(1000), "docSize": KB, "readPercent": 50.0, "mode": "insert",
		"think": Duration(0), "ordered": true, "skew": 0.99, "collection": "usertable",
	}
}
