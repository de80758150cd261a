package workloadfile

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Audit is a check of the data a run's operations leave, run after
// them: the ledger audit (the built-in ledger's) over the file's
// collections of accounts, ledger entries and summary buckets.
type Audit struct {
	Kind string // "ledger"
	// Accounts ({_id, balance}), Entries ({from, to, amount}) and
	// Summary ({count, total}) are the collections audited.
	Accounts, Entries, Summary string
	// InitialBalance is every account's balance when seeded.
	InitialBalance int64
}

var (
	auditKinds     = []string{"ledger"}
	ledgerAuditKs  = []string{"accounts", "entries", "summary", "initialBalance"}
	ledgerDefaults = Audit{Kind: "ledger", Accounts: "accounts", Entries: "ledger", Summary: "ledger_summary", InitialBalance: 1_000_000}
)

// audit reads `audit: ledger` (the built-in ledger's collection names
// and initial balance) or `audit: {ledger: {accounts, entries, summary,
// initialBalance}}`, each collection one the file defines.
func (p *parser) audit(n *yaml.Node, path string) *Audit {
	n = resolve(n)
	a := ledgerDefaults
	kind, body := n, (*yaml.Node)(nil)
	if n.Kind == yaml.MappingNode {
		if len(n.Content) != 2 {
			p.errorf(n, path, "got %s: want ledger, or a mapping of one audit such as {ledger: {accounts: accounts}}", kindOf(n))
			return nil
		}
		kind, body = n.Content[0], n.Content[1]
	}
	if kind.Kind != yaml.ScalarNode || !slices.Contains(auditKinds, kind.Value) {
		p.unknownValue(kind, path, "audit", auditKinds)
		return nil
	}
	at := map[string]*yaml.Node{}
	if body != nil {
		f := p.mapping(body, path+".ledger", "ledger audit key", ledgerAuditKs)
		if f == nil {
			return nil
		}
		for key, dst := range map[string]*string{"accounts": &a.Accounts, "entries": &a.Entries, "summary": &a.Summary} {
			if v := f[key]; v != nil {
				*dst, at[key] = p.text(v, path+".ledger."+key), v
			}
		}
		if v := f["initialBalance"]; v != nil {
			if b, ok := p.int(v, path+".ledger.initialBalance"); ok {
				if b <= 0 {
					p.errorf(v, path+".ledger.initialBalance", "%d is not valid: want the accounts' initial balance, above 0", b)
				}
				a.InitialBalance = b
			}
		}
	}
	var missing []string
	for _, c := range []struct{ key, name string }{{"accounts", a.Accounts}, {"entries", a.Entries}, {"summary", a.Summary}} {
		switch {
		case c.name == "" || p.f.Collection(c.name) != nil:
		case at[c.key] != nil:
			p.errorf(at[c.key], path+".ledger."+c.key, "unknown collection %q: the file defines %s", c.name, strings.Join(p.collNames(), ", "))
		default:
			missing = append(missing, fmt.Sprintf("%s %q", c.key, c.name))
		}
	}
	if len(missing) > 0 {
		p.errorf(kind, path, "the ledger audit's %s are not collections of the file (it defines %s): define them, or name the file's, such as {ledger: {entries: ledger}}",
			strings.Join(missing, " and "), strings.Join(p.collNames(), ", "))
	}
	return &a
}
