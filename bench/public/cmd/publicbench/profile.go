package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// profile, with -cpuprofile, takes the server's CPU profile over the
// measured part of the load (from the end of the warm-up to the end of the
// hold) into IMPL-rROUND.pprof; the channel gets its error once done.
func profile(ctx context.Context, o options, base, impl string, round int) <-chan error {
	done := make(chan error, 1)
	if o.cpuprofile == "" {
		done <- nil
		return done
	}
	secs := int((o.rampUp + o.hold - o.warmup).Seconds())
	if secs < 1 {
		done <- fmt.Errorf("-cpuprofile: nothing measured (warm-up %v, ramp-up and hold %v)", o.warmup, o.rampUp+o.hold)
		return done
	}
	go func() {
		done <- func() error {
			t := time.NewTimer(o.warmup)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return ctx.Err()
			}
			req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, secs), nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s answered %s", req.URL, resp.Status)
			}
			f, err := os.Create(filepath.Join(o.cpuprofile, fmt.Sprintf("%s-r%d.pprof", impl, round)))
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, resp.Body); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		}()
	}()
	return done
}
