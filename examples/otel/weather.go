package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

//go:generate go tool rpcgen Weather

// Weather tells made-up weather.
//
//rpcgen:service name=weather
type Weather interface {
	// Forecast returns tomorrow's weather in city.
	//
	//rpcgen:tool readonly
	Forecast(ctx context.Context, city string) (Forecast, error)
}

// Forecast is a day's weather.
type Forecast struct {
	City       string `json:"city"`
	Conditions string `json:"conditions"`
	HighC      int    `json:"highC"`
}

type weather struct{ log *slog.Logger }

func (w weather) Forecast(ctx context.Context, city string) (Forecast, error) {
	if city == "" {
		return Forecast{}, fmt.Errorf("which city?")
	}
	// The log record carries the trace and span ids of the tool call's span
	// (otel.LogHandler), and the progress notification is an event on it.
	w.log.InfoContext(ctx, "forecasting", "city", city)
	mcpserver.Progress(ctx, 1, 1, "looked at the sky")
	return Forecast{City: city, Conditions: "sunny", HighC: 21}, nil
}
