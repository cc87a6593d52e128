package replica

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// killChildEnv carries the emulator's URL to TestKillChild; killChildEnv+"_DIR" the directory.
const killChildEnv = "AIRSQL_REPLICA_KILL_CHILD"

// TestKillChild is the process TestKillNine kills: it resumes (or makes) the copies in the
// directory, says "ready", and syncs until it is killed.
func TestKillChild(t *testing.T) {
	url := os.Getenv(killChildEnv)
	if url == "" {
		t.Skip("run by TestKillNine as its child")
	}
	// A jumping clock: pacing waits end at once (the emulator has no rate limit).
	base, err := transport.NewBase(emulator.DefaultToken, repBase, transport.WithEndpointURL(url), transport.WithClock(clock.NewJump(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBase(bg, base, Options{Dir: os.Getenv(killChildEnv + "_DIR")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Table(bg, tasksID); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	for {
		if err := b.Sync(bg); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKillNine: a process keeping the copies in a directory is killed with SIGKILL while another
// client writes and it applies their payloads; then a new Base on the directory resumes them
// (no webhook created, no listing: the file held a whole state with its cursor), polls from the
// stored cursor, and equals the base record by record. Each round is killed at a random
// moment (eight rounds); each child resumes from what the one before left.
func TestKillNine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL of a child process: unix only")
	}
	s, err := emulator.New(emulator.WithFixture(fixture(false)), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	dir := t.TempDir()
	writer, err := transport.NewBase(emulator.DefaultToken, repBase, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(s.Client()), transport.WithClock(clock.NewJump(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	tasks := writer.Table(tasksID)
	rng := rand.New(rand.NewPCG(9, 9))
	var ids []string
	var leftovers, behind int
	for round := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+hs.URL, killChildEnv+"_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		ready := false
		for lines.Scan() {
			if strings.TrimSpace(lines.Text()) == "ready" {
				ready = true
				break
			}
		}
		if !ready {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the child ended without copying the table", round)
		}
		go func() { // keep its pipe drained
			for lines.Scan() {
			}
		}()
		for i := range 30 + rng.IntN(60) {
			switch k := rng.IntN(10); {
			case k < 4 || len(ids) == 0:
				rec, err := tasks.Create(bg, map[string]any{"Name": fmt.Sprintf("r%d-%d", round, i), "N": float64(rng.IntN(100))}, transport.WriteOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, rec.ID)
			case k < 8:
				id := ids[rng.IntN(len(ids))]
				if _, err := tasks.Update(bg, id, map[string]any{"N": float64(rng.IntN(100)), "Status": []string{"Todo", "Done"}[rng.IntN(2)]}, transport.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			default:
				j := rng.IntN(len(ids))
				if _, err := tasks.Delete(bg, ids[j]); err != nil {
					t.Fatal(err)
				}
				ids = append(ids[:j], ids[j+1:]...)
			}
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()

		if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmps) > 0 {
			leftovers++ // killed while writing a file: the old one stands
		}
		s.ResetRequests()
		base, err := transport.NewBase(emulator.DefaultToken, repBase, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(s.Client()), transport.WithClock(clock.NewJump(time.Now())))
		if err != nil {
			t.Fatal(err)
		}
		b, err := OpenBase(bg, base, Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		copied, ok := b.Copied(tasksID)
		if !ok {
			t.Fatalf("round %d: the copy of Tasks was not resumed from %s", round, dir)
		}
		resumedAt := copied.Cursor()
		if err := b.Sync(bg); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Requests() {
			if r.Method == "POST" && strings.HasSuffix(r.Path, "/webhooks") {
				t.Errorf("round %d: a webhook was created: the directory's was not resumed", round)
			}
			if r.Method == "GET" && r.Path == "/v0/"+repBase+"/"+tasksID {
				t.Errorf("round %d: Tasks was listed again after the kill (its file should hold a whole state)", round)
			}
		}
		if copied.Cursor() > resumedAt {
			behind++ // the kill left payloads to apply: the resumed copy caught up from its cursor
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmps) > 0 {
			t.Errorf("round %d: OpenBase left the temporary files of a killed write: %v", round, tmps)
		}
		h := &harness{t: t, s: s, base: base}
		h.assertTableEqual(copied, fmt.Sprintf("round %d, after the kill", round))
	}
	t.Logf("8 kills: %d left a half-written temporary file, %d left payloads to apply", leftovers, behind)
}
