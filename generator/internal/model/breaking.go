package model

import (
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/contract"
	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// breakingIgnores reads //rpcgen:breaking ignore=RULE[,RULE] reason="..."
// lines: the rpcgen breaking rules to ignore where they stand, each with
// the reason the change is acceptable, which the report prints.
func breakingIgnores(d *Directive, errs *diag.Collector) []string {
	var out []string
	for ; d != nil; d = d.Next {
		rules, pos, ok := d.value("ignore")
		if !ok || rules == "" {
			errs.At(d.Pos, "//rpcgen:breaking: give the rules to ignore (ignore=RULE) and why (reason=\"...\")")
			continue
		}
		reason, _, _ := d.value("reason")
		if strings.TrimSpace(reason) == "" {
			errs.At(d.Pos, "//rpcgen:breaking ignore=%s: give the reason the change is acceptable (reason=\"...\")", rules)
			continue
		}
		for _, r := range strings.Split(rules, ",") {
			r = strings.TrimSpace(r)
			if rule, ok := contract.RuleByName(r); !ok || !rule.Breaking {
				errs.At(pos, "//rpcgen:breaking: %q is not a breaking rule of rpcgen breaking (docs/evolving.md lists them)", r)
				continue
			}
			out = append(out, r+":"+reason)
		}
	}
	return out
}
