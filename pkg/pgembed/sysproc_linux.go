package pgembed

import "syscall"

// sysProcAttr returns the process attributes for initdb and postgres.
//
// Setpgid puts the server in its own process group, so Ctrl-C in a terminal
// reaches only Meridian, which then stops the server in order. With
// dieWithParent, Pdeathsig asks the kernel to send SIGINT (fast shutdown) to
// the server if Meridian dies without stopping it (the kernel sends it when
// the thread that started the server exits; Go keeps its threads alive, so
// in practice that is process exit). It is only for a server no other
// process attaches to (Options.DieWithProcess): a shared server must outlive
// the process that started it. With a non-nil u the process runs as that
// user, without supplementary groups.
func sysProcAttr(u *runUser, dieWithParent bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if dieWithParent {
		attr.Pdeathsig = syscall.SIGINT
	}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid}
	}
	return attr
}
