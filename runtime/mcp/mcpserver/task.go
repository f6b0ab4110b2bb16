package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// A tool may run as a task of the Tasks extension (mcp.TasksExtensionID,
// SEP-2663): the tools/call is answered at once with a CreateTaskResult, and
// the tool runs on, its client polling tasks/get for its status, answering
// its input requests with tasks/update and cancelling it with tasks/cancel.
// This file is the server's side of that: which calls become tasks, and
// running a task's tool. Storing tasks, running them and serving tasks/* is
// package runtime/mcp/tasks's (tasks.Enable), which installs itself with
// SetTaskStarter.

// TaskSupport says whether a tool runs as a task.
type TaskSupport uint8

// The task supports of a tool.
const (
	// TaskNever: every call runs in its request (the default).
	TaskNever TaskSupport = iota
	// TaskOptional: a call runs as a task when its client declared the
	// Tasks extension on it, in its request otherwise.
	TaskOptional
	// TaskRequired: a call runs only as a task; one whose client did not
	// declare the Tasks extension is refused with -32021
	// (mcp.ErrExtensionRequired).
	TaskRequired
)

// TaskJob is what a task runs: a tools/call as it came, and what its
// handler reads of the request. It holds only data, so that a store can keep
// it and a worker in another process run it (Server.RunTask).
type TaskJob struct {
	Tool               string          `json:"tool"`
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	ProtocolVersion    string          `json:"protocolVersion"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	// Principal is the authenticated caller (WithPrincipal), "" for none:
	// only requests on its behalf may see the task.
	Principal string `json:"principal,omitempty"`
	// Answers are the answers the client gave, by key, in the
	// input_required rounds of the call before it became a task
	// (BeginTask): the task's run finds them when it asks again.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// TaskStarter creates tasks. StartTask stores a task for job, durably
// (a tasks/get for it must find it once StartTask returns), has it run, and
// returns the task as a CreateTaskResult carries it (a mcp.Task's JSON
// object, without resultType, which the server adds). ctx is the tools/call
// request's.
type TaskStarter interface {
	StartTask(ctx context.Context, job *TaskJob) (json.RawMessage, error)
}

// TaskIO is what a running task's handler reaches the client through.
type TaskIO interface {
	// Input asks the client the request method with params, under key (an
	// inputRequests entry of the task), and returns its answer once the
	// client gave it (tasks/update), or ctx's error.
	Input(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error)
	// Progress reports the task's progress (Progress in its handler).
	Progress(progress, total float64, message string)
}

// SetTaskStarter makes the server run the tools whose Task is set as tasks,
// through t. Package runtime/mcp/tasks calls it (tasks.Enable), which also
// declares the extension and serves its methods.
func (s *Server) SetTaskStarter(t TaskStarter) {
	s.taskStarter.Store(&t)
}

func (s *Server) starter() TaskStarter {
	if p := s.taskStarter.Load(); p != nil {
		return *p
	}
	return nil
}

// errBeginTask is what BeginTask returns in a call's request.
var errBeginTask = errors.New("mcp: the call continues as a task: return this error")

// BeginTask marks where the call of a tool with Tool.TaskBegins set becomes
// a task. Before it, the handler runs in the tools/call request, and the
// questions it asks (package ask) are input_required rounds of the call
// itself (2026-07-28); there BeginTask returns an error, which the handler
// returns as it is: the server then creates the task and answers the call
// with it. The task runs the handler again from the start, with the answers
// of those rounds (its questions get them at once), and BeginTask returns
// nil. It returns nil too when the call does not become a task (its client
// did not declare the extension, for a TaskOptional tool): the handler goes
// on in the request. A handler must do nothing it cannot repeat before
// BeginTask.
func BeginTask(ctx context.Context) error {
	cc := callFrom(ctx)
	if cc == nil || !cc.prelude {
		return nil
	}
	cc.mu.Lock()
	cc.begun = true
	cc.mu.Unlock()
	return errBeginTask
}

// InTask reports whether ctx is the context of a tool running as a task.
func InTask(ctx context.Context) bool {
	cc := callFrom(ctx)
	return cc != nil && cc.task != nil
}

// taskMode decides whether a call of t becomes a task: it does when t
// supports tasks, the server has a TaskStarter and the client declared the
// extension on the request. A TaskRequired tool that cannot be one is
// refused.
func (ss *Session) taskMode(cc *callCtx, t *Tool) (bool, error) {
	if t.Task == TaskNever {
		return false, nil
	}
	_, declared := mcp.ExtensionSettings(cc.caps, mcp.TasksExtensionID)
	starter := ss.srv.starter()
	switch {
	case declared && starter != nil:
		return true, nil
	case t.Task != TaskRequired:
		return false, nil
	case starter == nil:
		return false, &runtime.Error{Code: runtime.CodeInternalError,
			Message: "tool " + t.Name + " runs only as a task, and the server has no task runtime (tasks.Enable)"}
	}
	return false, mcp.ErrExtensionRequired(mcp.TasksExtensionID)
}

// startTask creates the task of a call of t and returns the CreateTaskResult.
func (ss *Session) startTask(cc *callCtx, t *Tool, args json.RawMessage) (json.RawMessage, error) {
	// The job outlives the request, whose message args and caps are slices
	// of: copies.
	job := &TaskJob{
		Tool:               t.Name,
		Arguments:          bytes.Clone(args),
		ProtocolVersion:    verNames[cc.v],
		ClientCapabilities: bytes.Clone(cc.caps),
		Principal:          principalFrom(cc.Context),
	}
	if cc.in != nil && len(cc.in.answers) > 0 {
		job.Answers = cc.in.answers
	}
	raw, err := ss.srv.starter().StartTask(cc.Context, job)
	if err != nil {
		var re *runtime.Error
		if errors.As(err, &re) && re != nil {
			return nil, re
		}
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "create a task: " + err.Error()}
	}
	if !isObject(raw) || len(raw) < 2 {
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "create a task: the task is not a JSON object"}
	}
	b := make([]byte, 0, len(raw)+len(ss.srv.modernTail)+24)
	b = append(b, raw[:len(raw)-1]...)
	if len(raw) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"resultType":"`+mcp.ResultTypeTask+`"`...)
	if cc.v.modern() {
		// The modern tail, less its resultType: ,"_meta":{...}}
		return append(b, ss.srv.modernTail[len(`,"resultType":"complete"`):]...), nil
	}
	return append(b, '}'), nil
}

// RunTask runs the tool call job describes, as a task: ctx ends when the
// task is cancelled (or its time is up), and the handler asks the client
// and reports progress through io. It returns the call's result (a
// CallToolResult, isError set for a tool's error, as the call would have
// returned it) or the JSON-RPC error it failed with: a ProtocolError, a
// missing capability, a panic (-32603), or ctx's end. A TaskStarter's
// executor calls it, in this process or in any other serving the same
// tools.
func (s *Server) RunTask(ctx context.Context, job *TaskJob, io TaskIO) (json.RawMessage, *runtime.Error) {
	t := s.reg.Load().tool(job.Tool)
	if t == nil {
		return nil, runtime.InvalidParams("unknown tool %q", job.Tool)
	}
	v := legacyVersion(job.ProtocolVersion)
	if job.ProtocolVersion == mcp.Version20260728 {
		v = ver20260728
	}
	if v == verNone {
		return nil, runtime.InvalidParams("unknown protocol version %q", job.ProtocolVersion)
	}
	if job.Principal != "" {
		ctx = WithPrincipal(ctx, job.Principal)
	}
	ss := &Session{srv: s, logger: s.logger}
	cc := &callCtx{Context: ctx, ss: ss, v: v, caps: job.ClientCapabilities, level: -1,
		method: mcp.MethodToolsCall, task: io, replay: job.Answers}
	res, err := ss.run(cc, t, job.Arguments)
	cc.finish()
	if cerr := ctx.Err(); cerr != nil {
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "task ended: " + context.Cause(ctx).Error()}
	}
	if err != nil {
		if pe := asProtocolError(err); pe != nil {
			return nil, pe
		}
		re := toolError(err)
		if re.Code == mcp.CodeMissingClientCapability || re.Code == runtime.CodeInternalError {
			return nil, re
		}
		var sf *streamFailure
		if errors.As(err, &sf) {
			return s.errorResultMeta(v, re, appendStreamItemsMeta(appendErrorMeta(nil, re), sf.items)), nil
		}
		return s.errorResult(v, re), nil
	}
	if t.Content {
		return s.contentResult(v, t, res, ss), nil
	}
	return s.toolResult(v, t, res, ss), nil
}

// taskInput asks the client, from a task's handler, through its TaskIO.
func (cc *callCtx) taskInput(method, key string, params []byte) (json.RawMessage, error) {
	cc.mu.Lock()
	if cc.done {
		cc.mu.Unlock()
		return nil, errCallReturned
	}
	if key == "" {
		key = method + "#" + strconv.Itoa(cc.asked)
	}
	cc.asked++
	ans, ok := cc.replay[key]
	cc.mu.Unlock()
	if ok && checkAnswer(method, ans) == nil {
		return ans, nil
	}
	ans, err := cc.task.Input(cc, key, method, params)
	if err != nil {
		return nil, err
	}
	return ans, checkAnswer(method, ans)
}
