// Command otel shows a trace that follows an MCP tool call from a client to a
// server subprocess, and the metrics of both sides: the client starts this
// program again as a stdio MCP server, calls its forecast tool through the
// generated MCP client, and both processes export their spans and metrics
// (the operation durations, the requests in flight; the session durations
// too where the protocol has sessions, up to 2025-11-25: this client and
// server settle on 2026-07-28, which has none). Where to is
// configured by the standard environment variables: with
// OTEL_EXPORTER_OTLP_ENDPOINT set (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT for
// spans, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT for metrics), over OTLP/HTTP to
// a collector (OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME,
// OTEL_METRIC_EXPORT_INTERVAL and the rest apply); otherwise as JSON, the
// client's on stdout and the server's on stderr (its stdout carries MCP).
//
//	go run .
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"

	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
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

// setup installs a tracer and a meter provider exporting as the environment
// says (to w when no OTLP endpoint is set) and the W3C propagators; shutdown
// flushes both (the metrics are exported at shutdown, and every
// OTEL_METRIC_EXPORT_INTERVAL before it, a minute by default).
func setup(ctx context.Context, service string, w io.Writer) (shutdown func(context.Context) error, err error) {
	otlp := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	var spans sdktrace.SpanExporter
	if otlp || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		spans, err = otlptracehttp.New(ctx)
	} else {
		spans, err = stdouttrace.New(stdouttrace.WithWriter(w))
	}
	if err != nil {
		return nil, err
	}
	var metrics sdkmetric.Exporter
	if otlp || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "" {
		metrics, err = otlpmetrichttp.New(ctx)
	} else {
		metrics, err = stdoutmetric.New(stdoutmetric.WithWriter(w))
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
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res))
	global.SetTracerProvider(tp)
	global.SetMeterProvider(mp)
	global.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }, nil
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
	srv := mcpserver.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, &mcpserver.Options{
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
