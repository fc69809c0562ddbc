//go:build linux

package trial

import "syscall"

// groupAttr puts a trainer in a process group of its own, and has it
// killed when ideabench dies (Pdeathsig), so a killed run leaves no
// trainer writing into a trial folder that the next run reuses.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
