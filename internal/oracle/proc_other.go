//go:build !unix

package oracle

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ bool) { cmd.Process.Kill() }

func processAlive(int) bool { return true }
