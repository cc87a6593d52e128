package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// A data file with a damaged complete line is refused, naming -repair; with -repair the emulator
// starts, says on stderr what it dropped, and keeps the other writes.
func TestDamagedDataFileNeedsRepair(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data.log")
	cmd, url := startEmulator(t, "-addr", "127.0.0.1:0", "-demo", "-rate", "0", "-data", data)
	for i := range 3 {
		if st, _ := call(t, "POST", url+"/v0/"+emulator.DemoBaseID+"/Tasks", fmt.Sprintf(`{"fields":{"Name":"kept %d"}}`, i)); st != 200 {
			t.Fatalf("create: status %d", st)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	bad := []byte(lines[1])
	bad[len(bad)-4] ^= 0x01
	lines[1] = string(bad)
	if err := os.WriteFile(data, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	err = run([]string{"-addr", "127.0.0.1:0", "-demo", "-data", data}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "line 2 is damaged") || !strings.Contains(err.Error(), "-repair") {
		t.Fatalf("without -repair: %v", err)
	}

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), helperEnv+"=1", helperEnv+"_ARGS="+strings.Join([]string{"-addr", "127.0.0.1:0", "-demo", "-rate", "0", "-data", data, "-repair"}, "\x1f"))
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_ = child.Process.Kill()
	_ = child.Wait()
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("with -repair: %q %v; stderr %s", line, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-repair dropped 1 damaged line(s) (line 2;") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
