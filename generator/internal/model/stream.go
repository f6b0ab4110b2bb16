package model

import (
	"go/types"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// A stream method returns iter.Seq2[T, error] and nothing else: the items come
// as the sequence's pairs, and an error (the call's, or one mid-way) as the
// last pair. The iterator is the whole result because a stream has no result
// of its own before its first item: the call begins when the loop does, and a
// setup error is the first pair. Method.Result is then T, and Method.Stream is
// set.

// isStream reports whether t is iter.Seq2[T, error].
func isStream(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "iter" || n.Obj().Name() != "Seq2" {
		return false
	}
	return n.TypeArgs().Len() == 2 && isError(n.TypeArgs().At(1))
}

// streamItem returns the T of iter.Seq2[T, error].
func streamItem(t types.Type) types.Type {
	return types.Unalias(t).(*types.Named).TypeArgs().At(0)
}

// checkStream reports what a stream method cannot be.
func checkStream(m *Method, dirs map[string]*Directive, errs *diag.Collector) {
	if !m.Stream {
		return
	}
	switch {
	case m.Notification:
		// Reported already: a notification has no result.
	case m.Resource != nil || m.Prompt != nil || m.Completer != nil:
		errs.AtPosition(m.Pos, "method %s: a stream cannot be an MCP resource, prompt or completion; return its whole result", m.Name)
	case m.Content != ContentNone:
		errs.AtPosition(m.Pos, "method %s: a stream of MCP content is not supported; stream data items", m.Name)
	case m.Tool != nil && m.Tool.Task != "":
		errs.AtPosition(m.Pos, "method %s: a stream cannot run as a task (//rpcgen:tool task=%s): a task has no stream for its items; return its whole result", m.Name, m.Tool.Task)
	}
}

// HasTaskHandle reports whether the typed MCP client gives m a Start
// method and a task handle: a tool that may run as a task, with a result
// a task can carry (data, not a stream nor MCP content) and waited for
// (not a notification).
func HasTaskHandle(m *Method) bool {
	return m.Tool != nil && m.Tool.Task != "" && !m.Stream && !m.Notification && m.Content == ContentNone &&
		m.Resource == nil && m.Prompt == nil && m.Completer == nil
}

// checkTaskHandles reports a method whose typed MCP client's Start method
// would clash with another method of the service.
func checkTaskHandles(s *Service, errs *diag.Collector) {
	names := map[string]bool{}
	for _, m := range s.Methods {
		names[m.Name] = true
	}
	for _, m := range s.Methods {
		if HasTaskHandle(m) && names["Start"+m.Name] {
			errs.AtPosition(m.Pos, "method %s: the typed MCP client's Start%s (the handle of its task, //rpcgen:tool task=%s) clashes with method Start%s; rename one", m.Name, m.Name, m.Tool.Task, m.Name)
		}
	}
}

// methodIdempotent reads //rpcgen:method idempotent; a tool that is readonly
// or idempotent is idempotent too, and an idempotent method's tool gets the
// idempotent hint unless its //rpcgen:tool says otherwise.
func methodIdempotent(m *Method, d *Directive, errs *diag.Collector) {
	_, pos, declared := d.value("idempotent")
	if declared && m.Notification {
		errs.At(pos, "method %s: a notification is never retried, so idempotent does not apply", m.Name)
		return
	}
	t := m.Tool
	m.Idempotent = declared || !m.Notification && t != nil && (isTrue(t.ReadOnly) || isTrue(t.Idempotent))
	if declared && t != nil && t.Idempotent == nil {
		yes := true
		t.Idempotent = &yes
	}
}

func isTrue(b *bool) bool { return b != nil && *b }
