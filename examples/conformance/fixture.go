package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Texts the conformance scenarios look for.
const (
	simpleText   = "This is a simple text response for testing."
	errorText    = "This tool intentionally returns an error for testing"
	embeddedURI  = "test://embedded-resource"
	embeddedText = "This is an embedded resource content."
	mixedURI     = "test://mixed-content-resource"
	mixedJSON    = `{"test":"data","value":123}`
)

// fixture implements Conformance.
type fixture struct {
	// step is the pause between the progress reports and log messages.
	step time.Duration
	png  []byte
	wav  []byte
}

var _ Conformance = (*fixture)(nil)

func newFixture(step time.Duration) *fixture {
	return &fixture{step: step, png: redPixelPNG(), wav: silentWAV()}
}

func (f *fixture) SimpleText(context.Context) (mcp.Content, error) {
	return mcp.TextContent(simpleText), nil
}

func (f *fixture) Image(context.Context) (mcp.Content, error) {
	return mcp.ImageContent(f.png, "image/png"), nil
}

func (f *fixture) Audio(context.Context) (mcp.Content, error) {
	return mcp.AudioContent(f.wav, "audio/wav"), nil
}

func (f *fixture) EmbeddedResource(context.Context) (mcp.Content, error) {
	return mcp.EmbeddedText(embeddedURI, "text/plain", embeddedText), nil
}

func (f *fixture) MultipleContentTypes(context.Context) ([]mcp.Content, error) {
	return []mcp.Content{
		mcp.TextContent("Multiple content types test:"),
		mcp.ImageContent(f.png, "image/png"),
		mcp.EmbeddedText(mixedURI, "application/json", mixedJSON),
	}, nil
}

func (f *fixture) ErrorHandling(context.Context) (mcp.Content, error) {
	return mcp.Content{}, errors.New(errorText)
}

func (f *fixture) WithProgress(ctx context.Context) (mcp.Content, error) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, f.step); err != nil {
				return mcp.Content{}, err
			}
		}
		mcp.Progress(ctx, done, 100, "")
	}
	return mcp.TextContent("Progress reported: 0, 50 and 100 of 100."), nil
}

func (f *fixture) WithLogging(ctx context.Context) (mcp.Content, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, f.step); err != nil {
				return mcp.Content{}, err
			}
		}
		mcp.Log(ctx, mcp.LevelInfo, "conformance", msg)
	}
	return mcp.TextContent("Sent three log messages."), nil
}

func (f *fixture) JSONSchema(_ context.Context, p person) (mcp.Content, error) {
	text := "Hello"
	if p.Name != "" {
		text += ", " + p.Name
	}
	if p.Address != nil {
		text += ", of " + p.Address.Street + " in " + p.Address.City
	}
	return mcp.TextContent(text + "!"), nil
}

func (f *fixture) Reconnection(ctx context.Context) (mcp.Content, error) {
	// A notification first, so that the answer is an event stream (the
	// polling a client resumes); then end that stream and finish the work
	// while the client reconnects.
	mcp.Log(ctx, mcp.LevelInfo, "conformance", "closing the stream; reconnect to get the result")
	closed := mcp.CloseStream(ctx)
	if err := pause(ctx, f.step); err != nil {
		return mcp.Content{}, err
	}
	if !closed {
		return mcp.TextContent("Done (the transport kept the stream open)."), nil
	}
	return mcp.TextContent("Done, after closing the stream."), nil
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redPixelPNG encodes a 1x1 red image.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding to memory does not fail
	}
	return b.Bytes()
}

// silentWAV encodes 10 ms of silence: 8 kHz, mono, 16-bit PCM.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	data := make([]byte, samples*2)
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // a bytes.Buffer does not fail
	b.WriteString("RIFF")
	w(uint32(36 + len(data)))
	b.WriteString("WAVEfmt ")
	w(uint32(16))       // fmt chunk size
	w(uint16(1))        // PCM
	w(uint16(1))        // channels
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	b.WriteString("data")
	w(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}
