package contract

// A Rule is one kind of change the comparison reports. Breaking rules fail
// `rpcgen breaking`; the others are listed as safe with --safe.
type Rule struct {
	Name     string
	Category string // WIRE (JSON-RPC), MCP or GO
	Breaking bool
	// Doc says what the rule finds, in docs/evolving.md's words.
	Doc string
}

// Rules are every rule, by category, breaking ones first.
var Rules = []Rule{
	{"METHOD_REMOVED", "WIRE", true, "a JSON-RPC method is gone or renamed"},
	{"PARAM_REMOVED", "WIRE", true, "a param is gone or renamed"},
	{"PARAM_REQUIRED", "WIRE", true, "a new param is required, or an optional one became required"},
	{"PARAM_NARROWED", "WIRE", true, "a param accepts less than before: retyped, tighter bounds, enum values removed, null refused, a property required or refused"},
	{"PARAM_ORDER", "WIRE", true, "params taken by position changed order"},
	{"PARAM_BY_NAME", "WIRE", true, "a method that took params by position takes them by name only"},
	{"RESULT_FIELD_REMOVED", "WIRE", true, "a field of a result is gone or no longer always present"},
	{"RESULT_CHANGED", "WIRE", true, "a result may hold what it could not before: retyped, null, values outside its old enum"},
	{"ERROR_CODE_CHANGED", "WIRE", true, "a declared error's code changed, or the error is gone"},
	{"NOTIFICATION_CHANGED", "WIRE", true, "a notification became a call, or a call a notification"},
	{"TOOL_REMOVED", "MCP", true, "a tool is gone or renamed"},
	{"TOOL_INPUT_NARROWED", "MCP", true, "a tool's input schema accepts less: a new required property, retyped, tighter bounds, enum values removed, additionalProperties closed"},
	{"TOOL_OUTPUT_CHANGED", "MCP", true, "a tool's output schema changed incompatibly: a property gone or retyped, null allowed"},
	{"TOOL_HINTS_CHANGED", "MCP", true, "a tool is no longer read-only, became destructive, or is no longer idempotent"},
	{"TOOL_SCOPES_ADDED", "MCP", true, "a tool requires an OAuth scope it did not"},
	{"RESOURCE_REMOVED", "MCP", true, "a resource or resource template is gone or its URI changed"},
	{"PROMPT_REMOVED", "MCP", true, "a prompt is gone or renamed"},
	{"PROMPT_ARG_REQUIRED", "MCP", true, "a prompt requires an argument it did not"},
	{"GO_REMOVED", "GO", true, "an exported name of the generated Go code is gone"},
	{"GO_CHANGED", "GO", true, "the declaration of an exported generated Go name changed"},

	{"METHOD_ADDED", "WIRE", false, "a JSON-RPC method was added"},
	{"PARAM_ADDED", "WIRE", false, "an optional param was added"},
	{"PARAM_WIDENED", "WIRE", false, "a param accepts more than before, or became optional"},
	{"RESULT_FIELD_ADDED", "WIRE", false, "a result has a new field"},
	{"ERROR_ADDED", "WIRE", false, "a method declares a new error"},
	{"TOOL_ADDED", "MCP", false, "a tool was added"},
	{"TOOL_INPUT_WIDENED", "MCP", false, "a tool's input schema accepts more than before"},
	{"TOOL_DIGEST_CHANGED", "MCP", false, "a tool's digest changed: hosts that pin it see a new tool"},
	{"DESCRIPTOR_CHANGED", "MCP", false, "a tool's, resource's or prompt's title, description, icons or _meta changed: what hosts show, not what clients call"},
	{"RESOURCE_ADDED", "MCP", false, "a resource or resource template was added"},
	{"PROMPT_ADDED", "MCP", false, "a prompt was added"},
	{"GO_ADDED", "GO", false, "an exported generated Go name was added"},
}

// Notices are the safe rules a report prints without --safe too: a
// changed digest breaks no client, but a host that pinned the tool asks
// again, which a reviewer should know.
var Notices = map[string]bool{"TOOL_DIGEST_CHANGED": true}

// RuleByName returns the rule named name.
func RuleByName(name string) (Rule, bool) {
	for _, r := range Rules {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}
