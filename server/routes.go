package server

// routes registers every route. api/openapi.json documents each of them;
// TestOpenAPIMatchesRoutes fails when the two disagree.
func (s *Server) routes() {
	a := s.app
	a.Get("/healthz", s.healthz)
	a.Get("/readyz", s.readyz)
	a.Get("/metrics", s.metricsHandler)
	a.Get("/api/openapi.json", s.openapi)
	a.Get("/api/config", s.publicConfig)

	// Authentication (also at the legacy paths the first app used).
	for _, p := range []string{"/api/auth/register", "/register"} {
		a.Post(p, s.register)
	}
	for _, p := range []string{"/api/auth/login", "/login"} {
		a.Post(p, s.login)
	}
	// POST /auth/logout is the path the first app signs out at.
	for _, p := range []string{"/api/auth/logout", "/auth/logout"} {
		a.Post(p, s.authenticateForSetup, s.logout)
	}
	a.Get("/api/auth/me", s.authenticateForSetup, s.me)
	// Two-factor sign-in. An administrator without it may reach these (and
	// me, logout) while require_2fa_for_admins is on; disable may not.
	a.Get("/api/auth/2fa", s.authenticateForSetup, s.twoFactorStatus)
	a.Post("/api/auth/2fa/setup", s.authenticateForSetup, s.twoFactorSetup)
	a.Post("/api/auth/2fa/enable", s.authenticateForSetup, s.twoFactorEnable)
	a.Post("/api/auth/2fa/disable", s.authenticate, s.twoFactorDisable)
	a.Post("/api/auth/2fa/verify", s.twoFactorVerify)
	a.Get("/api/auth/sessions", s.authenticate, s.listSessions)
	a.Post("/api/auth/sessions/revoke-others", s.authenticate, s.endOtherSessions)
	a.Delete("/api/auth/sessions/:id", s.authenticate, s.endSession)

	// Administration.
	ad := a.Group("/api/admin", s.authenticate)
	ad.Get("/users", s.listUsers)
	ad.Put("/users/:id/status", s.setUserStatus)
	ad.Put("/users/:id/limits", s.setUserLimits)
	ad.Post("/assign-roles", s.assignRoles)
	ad.Get("/audit-logs", s.auditLogs)
	ad.Get("/audit-logs/verify", s.verifyAuditLog)
	ad.Get("/accounts", s.allAccounts)
	ad.Get("/ledger/trial-balance", s.trialBalance)
	ad.Post("/accounts/:account_number/deposit", s.deposit)
	ad.Post("/accounts/:account_number/withdraw", s.withdraw)
	ad.Get("/admindashboard/transactions-summary", s.adminSummary)
	ad.Get("/admindashboard/monthly-transactions", s.adminMonthly)
	ad.Get("/transactions/money-request", s.adminMoneyRequests)
	ad.Get("/transactions/history", s.adminHistory)
	ad.Post("/transactions/:id/reverse", s.reverseTransaction)
	ad.Put("/fx-rates/:base/:quote", s.setFXRate)
	ad.Get("/approvals", s.approvals)
	ad.Post("/approvals/:id/approve", s.approveApproval)
	ad.Post("/approvals/:id/reject", s.rejectApproval)
	ad.Get("/account-types", s.accountTypeRates)
	ad.Put("/account-types/:id", s.setInterestRate)

	// Exchange rates, for anyone signed in.
	a.Get("/api/fx-rates", s.authenticate, s.fxRates)

	// Customers (and, for notifications and password reset, any signed-in user).
	u := a.Group("/api/user", s.authenticate)
	u.Post("/password-reset", s.resetPassword)
	u.Get("/account-types", s.accountTypes)
	u.Post("/accounts", s.createAccount)
	u.Get("/accounts", s.listAccounts)
	u.Get("/accounts/:userId", s.listAccounts)
	u.Put("/accounts/:id", s.updateAccount)
	u.Delete("/accounts/:id", s.closeAccount)
	u.Get("/accounts/:id/interest", s.accountInterest)
	u.Get("/account-details", s.lookupAccount)
	// "/money-transer" is the first app's spelling, kept for its clients;
	// "/money-transfer" is the same handler spelled right.
	u.Post("/money-transer", s.transfer)
	u.Post("/money-transfer", s.transfer)
	u.Get("/transactions/history", s.history)
	u.Post("/fx-quotes", s.createFXQuote)
	u.Post("/fx-transfers", s.fxTransfer)
	u.Get("/preferences", s.preferences)
	u.Put("/preferences", s.setPreferences)
	u.Post("/scheduled-transfers", s.createScheduledTransfer)
	u.Get("/scheduled-transfers", s.listScheduledTransfers)
	u.Delete("/scheduled-transfers/:id", s.cancelScheduledTransfer)
	u.Get("/scheduled-transfers/:id/runs", s.scheduledTransferRuns)
	u.Get("/statements", s.statement)
	u.Post("/money-request", s.createMoneyRequest)
	u.Get("/transactions/money-request", s.listMoneyRequests)
	u.Put("/accept-money-request/:id", s.acceptMoneyRequest)
	u.Put("/decline-money-request/:id", s.declineMoneyRequest)
	u.Get("/payees", s.listPayees)
	u.Post("/payees", s.createPayee)
	u.Delete("/payees/:id", s.deletePayee)
	u.Get("/limits", s.listDailyLimits)
	u.Get("/dashboard/transactions-summary", s.userSummary)
	u.Get("/dashboard/monthly-transactions", s.userMonthly)
	u.Get("/notifications", s.listNotifications)
	u.Put("/notifications/read-all", s.readAllNotifications)
	u.Put("/notifications/:id/read", s.readNotification)
	u.Get("/devices", s.listDevices)
	u.Post("/devices", s.registerDevice)
	u.Delete("/devices/:id", s.removeDevice)

	a.Get("/ws", s.wsUpgrade, s.wsHandler())

	// Unknown API paths are a JSON 404 (405 with Allow for a known path
	// asked with another method); everything else is the web app.
	a.All(apiFallback, s.apiNotFound)
	a.Get("/*", s.web)
	a.Head("/*", s.web)
}
