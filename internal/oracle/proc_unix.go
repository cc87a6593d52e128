//go:build unix

package oracle

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so that stopping it reaches
// every process it started, and (on Linux) kills it if the test binary dies without cleaning up.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// signalGroup sends SIGTERM (or SIGKILL) to the server's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		cmd.Process.Signal(sig)
	}
}

// processAlive reports whether a process with that pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
