package oracle

import "syscall"

// setParentDeathSignal kills the server when the test binary dies (a panic in a test, a timeout's
// SIGQUIT, go test killed): no mariadbd outlives the tests.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
