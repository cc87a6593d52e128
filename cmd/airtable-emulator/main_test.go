package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// The tests re-run this test binary as the emulator (helperEnv set), so that a real process can be
// killed with SIGKILL.
const helperEnv = "AIRTABLE_EMULATOR_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		args := strings.Split(os.Getenv(helperEnv+"_ARGS"), "\x1f")
		if err := run(args, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var listening = regexp.MustCompile(`^listening on (http://127\.0\.0\.1:\d+)$`)

// startEmulator runs the command in a child process and returns its URL once it is listening.
func startEmulator(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, url, _ := startEmulatorOutput(t, args...)
	return cmd, url
}

// startEmulatorOutput is startEmulator that also returns the rest of the child's stdout.
func startEmulatorOutput(t *testing.T, args ...string) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperEnv+"_ARGS="+strings.Join(args, "\x1f"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line (%v); stderr: %s", err, stderr.String())
	}
	m := listening.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
	if m == nil {
		t.Fatalf("first line %q is not \"listening on http://HOST:PORT\"", line)
	}
	return cmd, m[1], out
}

func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+emulator.DemoToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

// TestAcknowledgedWritesSurviveKill9: every write that was answered is there after SIGKILL.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data.log")
	var ids []string
	for round := range 3 {
		cmd, url := startEmulator(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "0", "-data", data)
		for _, id := range ids {
			if st, _ := call(t, "GET", url+"/v0/"+emulator.DemoBaseID+"/Tasks/"+id, ""); st != 200 {
				t.Fatalf("round %d: record %s written before a kill -9 is gone (status %d)", round, id, st)
			}
		}
		st, body := call(t, "POST", url+"/v0/"+emulator.DemoBaseID+"/Tasks", fmt.Sprintf(`{"fields":{"Name":"round %d"}}`, round))
		if st != 200 {
			t.Fatalf("create: status %d", st)
		}
		ids = append(ids, body["id"].(string))
		// Kill right after the answer: no chance to flush anything more.
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
}

func TestFlags(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "f.json")
	os.WriteFile(fixture, []byte(`{"bases":[{"id":"appFLAG0000000001","name":"F","tables":[{"name":"T","fields":[{"name":"Name","type":"singleLineText"}]}]}]}`), 0o644)
	log := filepath.Join(t.TempDir(), "requests.jsonl")
	_, url := startEmulator(t, "-addr", "127.0.0.1:0", "-fixture", fixture, "-demo", "-request-log", log, "-not-found", "legacy", "-rate", "0")
	req, _ := http.NewRequest("GET", url+"/v0/appFLAG0000000001/Nope", nil)
	req.Header.Set("Authorization", "Bearer "+emulator.DefaultToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("legacy not-found: status %d", res.StatusCode)
	}
	if st, _ := call(t, "GET", url+"/v0/"+emulator.DemoBaseID+"/People?maxRecords=1", ""); st != 200 {
		t.Fatalf("demo: status %d", st)
	}
	// The server logs a request before it answers it, so both lines are there now.
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte("\n")); n != 2 {
		t.Fatalf("request log has %d lines: %q", n, raw)
	}
	if bytes.Contains(raw, []byte("secret")) || bytes.Contains(raw, []byte(emulator.DefaultToken)) {
		t.Fatal("a token is in the request log")
	}

	// A listener on every interface is announced with an address that reaches it.
	_, url2 := startEmulator(t, "-addr", ":0", "-rate", "0")
	if st, _ := call(t, "GET", url2+"/v0/meta/whoami", ""); st != 401 {
		t.Fatalf("%s: status %d, want 401 (no token for an empty server)", url2, st)
	}

	for _, bad := range [][]string{{"-not-found", "maybe"}, {"-rate", "-1"}, {"-fixture", "/nonexistent.json"}, {"extra"}, {"-nope"}} {
		if err := run(append([]string{"-addr", "127.0.0.1:0"}, bad...), io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestOneLineAndGracefulStop: the listening line is all the command ever writes to stdout, and
// SIGTERM stops it cleanly (exit status 0).
func TestOneLineAndGracefulStop(t *testing.T) {
	cmd, url, out := startEmulatorOutput(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "0")
	if st, _ := call(t, "GET", url+"/v0/"+emulator.DemoBaseID+"/Tasks?pageSize=100", ""); st != 200 {
		t.Fatalf("list: status %d", st)
	}
	call(t, "GET", url+"/v0/"+emulator.DemoBaseID+"/Nope", "") // an error answer writes nothing either
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(out) // ends when the process closes stdout
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
	if len(rest) != 0 {
		t.Fatalf("stdout after the listening line: %q", rest)
	}
}

// TestFlagsReachTheServer: the limits given as flags are the ones the server applies.
func TestFlagsReachTheServer(t *testing.T) {
	whoami := func(url string) int { st, _ := call(t, "GET", url+"/v0/meta/whoami", ""); return st }
	list := func(url, query string) (int, map[string]any) {
		return call(t, "GET", url+"/v0/"+emulator.DemoBaseID+"/Tasks?"+query, "")
	}
	t.Run("-rate and -penalty", func(t *testing.T) {
		_, url := startEmulator(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "1", "-penalty", "1h")
		if st, _ := list(url, "maxRecords=1"); st != 200 {
			t.Fatalf("first: %d", st)
		}
		for range 2 { // refused, then still refused: a 1 s window has passed long before an hour
			if st, body := list(url, "maxRecords=1"); st != 429 {
				t.Fatalf("status %d, want 429: %v", st, body)
			}
		}
	})
	t.Run("-token-rate", func(t *testing.T) {
		_, url := startEmulator(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "0", "-token-rate", "1")
		if whoami(url) != 200 || whoami(url) != 429 {
			t.Fatal("the second request of the second did not get 429")
		}
	})
	t.Run("-iterator-ttl", func(t *testing.T) {
		// 1 ns: an offset is stale by the time the next request arrives.
		_, url := startEmulator(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "0", "-iterator-ttl", "1ns")
		st, body := list(url, "pageSize=1")
		if st != 200 || body["offset"] == nil {
			t.Fatalf("first page: %d %v", st, body)
		}
		st, body = list(url, "pageSize=1&offset="+body["offset"].(string))
		if st != 422 || fmt.Sprint(body["error"]) != "map[type:LIST_RECORDS_ITERATOR_NOT_AVAILABLE]" {
			t.Fatalf("next page: %d %v", st, body)
		}
	})
	t.Run("-latency", func(t *testing.T) {
		_, url := startEmulator(t, "-addr", "127.0.0.1:0", "-rate", "0", "-latency", "1h")
		client := &http.Client{Timeout: 300 * time.Millisecond}
		res, err := client.Get(url + "/v0/meta/whoami")
		if err == nil {
			res.Body.Close()
			t.Fatalf("answered (status %d) despite an hour of latency", res.StatusCode)
		}
	})
}
