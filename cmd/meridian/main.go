// Command meridian is the Meridian bank: API, WebSocket, web app and admin CLI.
package main

import (
	"os"

	"meridian/cli"
)

func main() { os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr)) }
