package pgembed

import "syscall"

// sysProcAttr returns the process attributes for initdb and postgres.
//
// Setpgid puts the server in its own process group, so Ctrl-C in a terminal
// reaches only Meridian, which then stops the server in order. Pdeathsig asks
// the kernel to send SIGINT (fast shutdown) to the server if Meridian dies
// without stopping it. (The kernel sends it when the thread that started the
// server exits; Go keeps its threads alive, so in practice that is process
// exit.) With a non-nil u the process runs as that user, without
// supplementary groups.
func sysProcAttr(u *runUser) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGINT,
	}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid}
	}
	return attr
}
