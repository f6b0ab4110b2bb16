package main

import (
	"context"
	"errors"
	"os"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/rpcgen/rpcgen/ext/otel"
)

// telemetry returns ext/otel's instrumentation exporting over OTLP/HTTP as
// OpenTelemetry's environment says (OTEL_EXPORTER_OTLP_ENDPOINT, or the
// _TRACES_ and _METRICS_ endpoints, _HEADERS, OTEL_METRIC_EXPORT_INTERVAL,
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), with service.name "notes"
// unless the environment names it and service.instance.id the replica's
// name; nil when no endpoint is set. shutdown exports what is left.
func telemetry(ctx context.Context, replica string) (in *otel.Instrumentation, shutdown func(context.Context) error, err error) {
	all := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	traces := all || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	metrics := all || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
	if !traces && !metrics {
		return nil, nil, nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceInstanceID(replica)))
	if err == nil && os.Getenv("OTEL_SERVICE_NAME") == "" {
		res, err = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName("notes")))
	}
	if err != nil {
		return nil, nil, err
	}
	opts := []otel.Option{otel.WithPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))}
	var shutdowns []func(context.Context) error
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		opts = append(opts, otel.WithTracerProvider(tp))
		shutdowns = append(shutdowns, tp.Shutdown)
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		opts = append(opts, otel.WithMeterProvider(mp))
		shutdowns = append(shutdowns, mp.Shutdown)
	}
	return otel.New(opts...), func(ctx context.Context) error {
		var errs []error
		for _, f := range shutdowns {
			errs = append(errs, f(ctx))
		}
		return errors.Join(errs...)
	}, nil
}
