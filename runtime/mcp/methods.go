package mcp

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
)

// The method table: one row per method of the protocol, read by everything
// that must know about a method (the server's dispatch, the client's retry
// policy, the HTTP transports' headers). Adding a method is a row here, a
// handler where it is answered and a call where it is sent; an extension
// adds its methods with RegisterMethod. The names below are the only place
// the runtime spells them.

// Requests of the protocol, by their names on the wire.
const (
	MethodInitialize             = "initialize"
	MethodPing                   = "ping"
	MethodServerDiscover         = "server/discover"
	MethodToolsList              = "tools/list"
	MethodToolsCall              = "tools/call"
	MethodResourcesList          = "resources/list"
	MethodResourcesTemplatesList = "resources/templates/list"
	MethodResourcesRead          = "resources/read"
	MethodResourcesSubscribe     = "resources/subscribe"
	MethodResourcesUnsubscribe   = "resources/unsubscribe"
	MethodPromptsList            = "prompts/list"
	MethodPromptsGet             = "prompts/get"
	MethodCompletionComplete     = "completion/complete"
	MethodLoggingSetLevel        = "logging/setLevel"
	MethodSubscriptionsListen    = "subscriptions/listen"
	MethodElicitationCreate      = "elicitation/create"
	MethodSamplingCreateMessage  = "sampling/createMessage"
	MethodRootsList              = "roots/list"
)

// Requests of the Skills extension (SEP-2640, skills.go), rows that
// skills.go registers with RegisterMethod.
const (
	MethodSkillsList             = "skills/list"
	MethodSkillsGet              = "skills/get"
	MethodResourcesDirectoryRead = "resources/directory/read"
)

// Notifications of the protocol, by their names on the wire.
const (
	NotificationInitialized               = "notifications/initialized"
	NotificationCancelled                 = "notifications/cancelled"
	NotificationProgress                  = "notifications/progress"
	NotificationMessage                   = "notifications/message"
	NotificationResourcesUpdated          = "notifications/resources/updated"
	NotificationResourcesListChanged      = "notifications/resources/list_changed"
	NotificationToolsListChanged          = "notifications/tools/list_changed"
	NotificationPromptsListChanged        = "notifications/prompts/list_changed"
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// Methods of the official extensions the runtime implements, by their names
// on the wire: the Tasks extension (TasksExtensionID, SEP-2663).
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksUpdate = "tasks/update"
	MethodTasksCancel = "tasks/cancel"
	// NotificationTasks carries a task's state (DetailedTask) to a client
	// listening for it.
	NotificationTasks = "notifications/tasks"
)

// Method is one row of the method table: a method of the protocol (or of an
// extension) and what the runtime needs to know of it wherever it is sent,
// answered or carried.
type Method struct {
	// Name is the method's name on the wire.
	Name string
	// Since and Until are the first and the last revision that have the
	// method; "" is the first revision for Since, the newest for Until.
	// Revisions compare as their names do (YYYY-MM-DD).
	Since, Until string
	// Direction says which side sends it.
	Direction Direction
	// Notification marks a notification: it gets no response.
	Notification bool
	// Capability is what gates the method: the capability the receiving
	// side must have declared for the method to be sent to it ("tools",
	// "resources", "resources.subscribe", "prompts", "completions",
	// "logging" of a server; "elicitation", "sampling", "roots" of a
	// client); "" when nothing does. A server answers a request whose
	// capability it does not offer with Method not found.
	Capability string
	// Extension names the extension that adds the method (such as
	// "io.modelcontextprotocol/tasks"), "" for a method of the protocol
	// itself: such a method is served only where the extension was
	// negotiated.
	Extension string
	// Retry says whether a request lost in flight may be sent again.
	Retry RetrySafety
	// Inline marks a request a server answers with a result it prepared
	// beforehand or a quick check, running none of its user's code and never
	// waiting for the client: a stream transport may answer it on its reader
	// goroutine (runtime.Options.Inline).
	Inline bool
	// InputRequired marks a request that a 2026-07-28 server may answer with
	// an input_required result, asking the client for input and having it
	// retry with the answers.
	InputRequired bool
	// Target is the member of the params that names what the request acts
	// on ("name" of a tool or a prompt, "uri" of a resource), "" for none.
	Target string
	// NameHeader says that over 2026-07-28 Streamable HTTP the value of
	// Target travels in the Mcp-Name header too.
	NameHeader bool

	header []string // []string{Name}: the Mcp-Method header value, shared
}

// Direction says which side of a connection sends a method.
type Direction uint8

// The directions a method is sent in.
const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	BothWays = ClientToServer | ServerToClient
)

// RetrySafety says whether a request lost in flight (its connection
// dropped, or a proxy answered 502, 503 or 504: it may or may not have run)
// may be sent again.
type RetrySafety uint8

// The retry safeties of a request.
const (
	// NotRetrySafe: running the request twice may do more than running it
	// once.
	NotRetrySafe RetrySafety = iota
	// RetrySafe: running it twice does what running it once does.
	RetrySafe
	// RetrySafeIfTool: as safe as the tool it calls, which is when
	// tools/list marks it readOnlyHint or idempotentHint (tools/call).
	RetrySafeIfTool
)

// In reports whether the method exists in revision, one of the revisions
// this package names (LegacyVersions, ModernVersions).
func (m *Method) In(revision string) bool {
	return revision >= m.Since && (m.Until == "" || revision <= m.Until)
}

// HeaderValue returns the method's name as a header value slice (the
// Mcp-Method header), shared by every request that carries it; it must not
// be modified.
func (m *Method) HeaderValue() []string { return m.header }

// coreMethods are the rows of the protocol's own methods.
var coreMethods = [...]Method{
	{Name: MethodInitialize, Until: Version20251125, Direction: ClientToServer, Inline: true},
	{Name: MethodPing, Until: Version20251125, Direction: BothWays, Retry: RetrySafe, Inline: true},
	{Name: MethodServerDiscover, Since: Version20260728, Direction: ClientToServer, Retry: RetrySafe, Inline: true},
	{Name: MethodToolsList, Direction: ClientToServer, Capability: "tools", Retry: RetrySafe, Inline: true},
	{Name: MethodToolsCall, Direction: ClientToServer, Capability: "tools", Retry: RetrySafeIfTool,
		InputRequired: true, Target: "name", NameHeader: true},
	{Name: MethodResourcesList, Direction: ClientToServer, Capability: "resources", Retry: RetrySafe, Inline: true},
	{Name: MethodResourcesTemplatesList, Direction: ClientToServer, Capability: "resources", Retry: RetrySafe, Inline: true},
	{Name: MethodResourcesRead, Direction: ClientToServer, Capability: "resources", Retry: RetrySafe,
		InputRequired: true, Target: "uri", NameHeader: true},
	{Name: MethodResourcesSubscribe, Until: Version20251125, Direction: ClientToServer,
		Capability: "resources.subscribe", Retry: RetrySafe, Target: "uri"},
	{Name: MethodResourcesUnsubscribe, Until: Version20251125, Direction: ClientToServer,
		Capability: "resources.subscribe", Retry: RetrySafe, Target: "uri"},
	{Name: MethodPromptsList, Direction: ClientToServer, Capability: "prompts", Retry: RetrySafe, Inline: true},
	{Name: MethodPromptsGet, Direction: ClientToServer, Capability: "prompts", Retry: RetrySafe,
		InputRequired: true, Target: "name", NameHeader: true},
	{Name: MethodCompletionComplete, Direction: ClientToServer, Capability: "completions", Retry: RetrySafe},
	{Name: MethodLoggingSetLevel, Until: Version20251125, Direction: ClientToServer, Capability: "logging",
		Retry: RetrySafe, Inline: true},
	{Name: MethodSubscriptionsListen, Since: Version20260728, Direction: ClientToServer},
	{Name: MethodElicitationCreate, Since: Version20250618, Direction: ServerToClient, Capability: "elicitation"},
	{Name: MethodSamplingCreateMessage, Direction: ServerToClient, Capability: "sampling"},
	{Name: MethodRootsList, Direction: ServerToClient, Capability: "roots"},

	{Name: NotificationInitialized, Until: Version20251125, Direction: ClientToServer, Notification: true},
	{Name: NotificationCancelled, Direction: BothWays, Notification: true},
	{Name: NotificationProgress, Direction: BothWays, Notification: true},
	{Name: NotificationMessage, Direction: ServerToClient, Notification: true, Capability: "logging"},
	{Name: NotificationResourcesUpdated, Direction: ServerToClient, Notification: true, Capability: "resources.subscribe"},
	{Name: NotificationResourcesListChanged, Direction: ServerToClient, Notification: true, Capability: "resources"},
	{Name: NotificationToolsListChanged, Direction: ServerToClient, Notification: true, Capability: "tools"},
	{Name: NotificationPromptsListChanged, Direction: ServerToClient, Notification: true, Capability: "prompts"},
	{Name: NotificationSubscriptionsAcknowledged, Since: Version20260728, Direction: ServerToClient, Notification: true},
}

// extensionMethods are the rows of the official extensions' methods the
// runtime implements: each is served only where its extension was
// negotiated. A task's requests carry its taskId in Mcp-Name, so that a
// load balancer can route them to the replica holding the task.
var extensionMethods = [...]Method{
	{Name: MethodTasksGet, Extension: TasksExtensionID, Direction: ClientToServer, Retry: RetrySafe,
		Target: "taskId", NameHeader: true},
	// An answer to a key already answered is ignored: sending it twice does
	// what sending it once does.
	{Name: MethodTasksUpdate, Extension: TasksExtensionID, Direction: ClientToServer, Retry: RetrySafe,
		Target: "taskId", NameHeader: true},
	{Name: MethodTasksCancel, Extension: TasksExtensionID, Direction: ClientToServer, Retry: RetrySafe,
		Target: "taskId", NameHeader: true},
	{Name: NotificationTasks, Extension: TasksExtensionID, Direction: ServerToClient, Notification: true},
}

// methodTable is the table: the core rows and those RegisterMethod added.
// It is built on first use, so a program starting up pays nothing for it,
// and replaced whole on each registration, so a lookup takes no lock.
var methodTable struct {
	once   sync.Once
	mu     sync.Mutex // serializes RegisterMethod
	byName atomic.Pointer[map[string]*Method]
	rows   atomic.Pointer[[]*Method]
}

// loadTable returns the table, building it with the core rows the first
// time.
func loadTable() *map[string]*Method {
	methodTable.once.Do(func() {
		byName := make(map[string]*Method, len(coreMethods)+len(extensionMethods))
		rows := make([]*Method, 0, len(coreMethods)+len(extensionMethods))
		for _, m := range append(rowPointers(coreMethods[:]), rowPointers(extensionMethods[:])...) {
			m.header = []string{m.Name}
			byName[m.Name] = m
			rows = append(rows, m)
		}
		methodTable.rows.Store(&rows)
		methodTable.byName.Store(&byName)
	})
	return methodTable.byName.Load()
}

func rowPointers(rows []Method) []*Method {
	out := make([]*Method, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out
}

// LookupMethod returns the row of the method named name, or nil when the
// table has none.
func LookupMethod(name string) *Method { return (*loadTable())[name] }

// Methods returns every row of the table: the protocol's methods, then those
// extensions registered, in the order they were registered. The rows must
// not be modified.
func Methods() []*Method {
	loadTable()
	return slices.Clone(*methodTable.rows.Load())
}

// RegisterMethod adds an extension's method to the table and returns its
// row, which the server's dispatch, the client and the HTTP transports then
// read as they read the protocol's own. Call it before serving or
// connecting, from an init function say; it is safe for concurrent use.
// Registering a row equal to one already registered returns that row, so
// that two packages (a generated server and a generated client, say) may
// both register the methods of an extension they share. It panics on a
// programmer error: no Extension or one that CheckExtensionID refuses, a
// name CheckExtensionMethod refuses or already in the table with another
// row, no Direction, or Since and Until that are not in order.
func RegisterMethod(m Method) *Method {
	loadTable()
	methodTable.mu.Lock()
	defer methodTable.mu.Unlock()
	old := *methodTable.byName.Load()
	if prev := old[m.Name]; prev != nil && m.Extension != "" && sameRow(prev, &m) {
		return prev
	}
	switch {
	case m.Name == "":
		panic("mcp: RegisterMethod: a method with no Name")
	case old[m.Name] != nil:
		panic(fmt.Sprintf("mcp: RegisterMethod: method %q is already in the table, with another row", m.Name))
	case m.Direction == 0 || m.Direction&^BothWays != 0:
		panic(fmt.Sprintf("mcp: RegisterMethod: method %q has no valid Direction", m.Name))
	case m.Until != "" && m.Since > m.Until:
		panic(fmt.Sprintf("mcp: RegisterMethod: method %q: Since %q is after Until %q", m.Name, m.Since, m.Until))
	case m.Extension == "":
		panic(fmt.Sprintf("mcp: RegisterMethod: method %q names no Extension", m.Name))
	}
	if err := CheckExtensionID(m.Extension); err != nil {
		panic(fmt.Sprintf("mcp: RegisterMethod: method %q: %v", m.Name, err))
	}
	if err := CheckExtensionMethod(m.Name, m.Notification); err != nil {
		panic(fmt.Sprintf("mcp: RegisterMethod: %v", err))
	}
	row := new(Method)
	*row = m
	row.header = []string{m.Name}
	byName := make(map[string]*Method, len(old)+1)
	for k, v := range old {
		byName[k] = v
	}
	byName[row.Name] = row
	rows := append(slices.Clone(*methodTable.rows.Load()), row)
	methodTable.rows.Store(&rows)
	methodTable.byName.Store(&byName)
	return row
}

// sameRow reports whether two rows say the same of their method.
func sameRow(a, b *Method) bool {
	x, y := *a, *b
	x.header, y.header = nil, nil
	return reflect.DeepEqual(x, y)
}
