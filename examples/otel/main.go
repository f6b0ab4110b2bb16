// Command otel shows a trace that follows an MCP tool call from a client to a
// server subprocess: the client starts this program again as a stdio MCP
// server, calls its forecast tool through the generated MCP client, and both
// processes export their spans. Where to is configured by the standard
// environment variables: with OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, over OTLP/HTTP to a collector
// (OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME and the rest apply);
// otherwise as JSON, the client's on stdout and the server's on stderr (its
// stdout carries MCP).
//
//	go run .
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run .
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"

	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// serveEnv, set to 1, makes the program the server.
const serveEnv = "OTEL_EXAMPLE_SERVE"

func main() {
	var err error
	if os.Getenv(serveEnv) == "1" {
		err = serve(context.Background(), os.Stderr)
	} else {
		err = run(context.Background(), os.Stdout, os.Stderr, "Lisbon")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "otel:", err)
		os.Exit(1)
	}
}

// setup installs a tracer provider exporting as the environment says (to w
// when no OTLP endpoint is set) and the W3C propagators; shutdown flushes it.
func setup(ctx context.Context, service string, w io.Writer) (shutdown func(context.Context) error, err error) {
	var exp sdktrace.SpanExporter
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		exp, err = otlptracehttp.New(ctx)
	} else {
		exp, err = stdouttrace.New(stdouttrace.WithWriter(w))
	}
	if err != nil {
		return nil, err
	}
	if os.Getenv("OTEL_SERVICE_NAME") != "" {
		service = os.Getenv("OTEL_SERVICE_NAME")
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	global.SetTracerProvider(tp)
	global.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// serve is the server: Weather over stdio, traced, logging to stderr with
// trace ids.
func serve(ctx context.Context, stderr io.Writer) error {
	shutdown, err := setup(ctx, "weather-server", stderr)
	if err != nil {
		return err
	}
	defer shutdown(context.Background())
	log := slog.New(otel.LogHandler(slog.NewJSONHandler(stderr, nil)))
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, &mcp.ServerOptions{
		Logger:     log,
		Middleware: []runtime.Middleware{otel.New().MCPServer()},
	})
	srv.AddTools(WeatherTools(weather{log: log})...)
	return srv.ServeStdio(ctx)
}

// run is the client: it starts the server, calls Forecast in a span of its
// own, and prints the forecast on stderr.
func run(ctx context.Context, stdout, stderr io.Writer, city string) error {
	shutdown, err := setup(ctx, "weather-client", stdout)
	if err != nil {
		return err
	}
	defer shutdown(context.Background())
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stderr = stderr
	client, err := mcpclient.DialCommand(ctx, cmd, mcpclient.Options{Middleware: []mcpclient.Middleware{otel.New().MCPClient()}})
	if err != nil {
		return err
	}
	ctx, span := global.Tracer("example").Start(ctx, "plan a trip")
	f, err := NewWeatherMCPClient(client).Forecast(ctx, city)
	span.End()
	if cerr := client.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %s, %d°C\n", f.City, f.Conditions, f.HighC)
	return nil
}
