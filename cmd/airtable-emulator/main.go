// Command airtable-emulator serves the Airtable Web API v0 locally (see emulator/README.md).
//
//	airtable-emulator -addr 127.0.0.1:0 -demo
//
// When ready it prints exactly one line to stdout, "listening on http://HOST:PORT"; everything
// else goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/airsql/airsql/emulator"
)

// fixtureFlags collects repeated -fixture flags.
type fixtureFlags []string

func (f *fixtureFlags) String() string     { return strings.Join(*f, ",") }
func (f *fixtureFlags) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "airtable-emulator:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("airtable-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var fixtures fixtureFlags
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (:0 picks a free port)")
	fs.Var(&fixtures, "fixture", "load bases, tables, fields, views, records and tokens from this fixture file (repeatable)")
	demo := fs.Bool("demo", false, "load the built-in demo base ("+emulator.DemoBaseID+", token "+emulator.DemoToken+")")
	data := fs.String("data", "", "persist every acknowledged write to this file; reload it at start")
	repair := fs.Bool("repair", false, "start on a -data file with damaged lines by dropping them (reported on stderr) instead of refusing")
	rate := fs.Float64("rate", emulator.DefaultRate, "requests per second per base before 429 (0: unlimited)")
	penalty := fs.Duration("penalty", emulator.DefaultPenalty, "how long a base answers 429 after exceeding -rate")
	tokenRate := fs.Float64("token-rate", emulator.DefaultTokenRate, "requests per second per user (all tokens of one fixture userId) before 429 (0: unlimited)")
	latency := fs.Duration("latency", 0, "delay added to every response")
	ttl := fs.Duration("iterator-ttl", emulator.DefaultIteratorTTL, "how long an unused offset stays valid")
	notFound := fs.String("not-found", "forbidden", "how unknown bases, tables and records answer: forbidden (403, today's service) or legacy (the 404s of 2017-2022)")
	requestLog := fs.String("request-log", "", "append one JSON object per request (method, path, query, status) to this file")
	fetchAttachments := fs.Bool("fetch-attachments", false, "download the files of attachments written by URL, as the service does, to fill in their size, type, width and height")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; every setting is a flag (see -h)", fs.Args())
	}

	opts := []emulator.Option{
		emulator.WithRate(*rate, *penalty), emulator.WithTokenRate(*tokenRate),
		emulator.WithLatency(*latency), emulator.WithIteratorTTL(*ttl),
	}
	switch *notFound {
	case "forbidden":
		opts = append(opts, emulator.WithNotFound(emulator.NotFoundForbidden))
	case "legacy":
		opts = append(opts, emulator.WithNotFound(emulator.NotFoundLegacy))
	default:
		return fmt.Errorf("-not-found %q: want forbidden or legacy", *notFound)
	}
	if *demo {
		opts = append(opts, emulator.WithDemo())
	}
	for _, path := range fixtures {
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("-fixture: %w", err)
		}
		f, err := emulator.ParseFixture(raw)
		if err != nil {
			return fmt.Errorf("-fixture %s: %w", path, err)
		}
		opts = append(opts, emulator.WithFixture(f))
	}
	if *data != "" {
		opts = append(opts, emulator.WithDataFile(*data), emulator.WithWarnings(stderr))
		if *repair {
			opts = append(opts, emulator.WithRepair())
		}
	}
	if *requestLog != "" {
		opts = append(opts, emulator.WithRequestLog(*requestLog))
	}
	if *fetchAttachments {
		opts = append(opts, emulator.WithAttachmentFetch(nil))
	}
	srv, err := emulator.New(opts...)
	if err != nil {
		return err
	}
	defer srv.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 30 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	fmt.Fprintf(stdout, "listening on http://%s\n", dialAddr(ln.Addr()))

	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(shutdownCtx)
	}
}

// dialAddr is the address clients should use: a listener on every interface (":0", "0.0.0.0:0")
// is announced as 127.0.0.1, which always reaches it.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
