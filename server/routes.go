package server

// routes registers every route. api/openapi.json documents each of them;
// TestOpenAPIMatchesRoutes fails when the two disagree. Every authenticated
// route names what it lets in (access, server.go): a sign-in session always
// (as its role allows), a personal access token or a connected app's token
// only with the route's scope (TestScopeTable).
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
	// POST /auth/logout is the path the first app signs out at. Any token
	// may sign itself out: `meridian logout` revokes its access token so.
	for _, p := range []string{"/api/auth/logout", "/auth/logout"} {
		a.Post(p, s.auth(anyTokenSetup), s.logout)
	}
	a.Get("/api/auth/me", s.auth(anyTokenSetup), s.me)
	// Two-factor sign-in. An administrator without it may reach these (and
	// me, logout) while require_2fa_for_admins is on; disable may not.
	a.Get("/api/auth/2fa", s.auth(setupOnly), s.twoFactorStatus)
	a.Post("/api/auth/2fa/setup", s.auth(setupOnly), s.twoFactorSetup)
	a.Post("/api/auth/2fa/enable", s.auth(setupOnly), s.twoFactorEnable)
	a.Post("/api/auth/2fa/disable", s.auth(sessionOnly), s.twoFactorDisable)
	a.Post("/api/auth/2fa/verify", s.twoFactorVerify)
	a.Get("/api/auth/sessions", s.auth(sessionOnly), s.listSessions)
	a.Post("/api/auth/sessions/revoke-others", s.auth(sessionOnly), s.endOtherSessions)
	a.Delete("/api/auth/sessions/:id", s.auth(sessionOnly), s.endSession)
	a.Post("/api/auth/tokens", s.auth(sessionOnly), s.createToken)
	a.Get("/api/auth/tokens", s.auth(sessionOnly), s.listTokens)
	a.Delete("/api/auth/tokens/:id", s.auth(sessionOnly), s.revokeToken)
	a.Get("/api/auth/connected-apps", s.auth(sessionOnly), s.connectedApps)
	a.Delete("/api/auth/connected-apps/:id", s.auth(sessionOnly), s.disconnectApp)
	// Connected apps' consent (the OAuth protocol itself: mountOAuth).
	a.Get("/api/oauth/consent", s.auth(sessionOnly), s.oauthConsentScreen)
	a.Post("/api/oauth/consent", s.auth(sessionOnly), s.oauthConsent)

	// Administration.
	read, write := s.auth(adminRead), s.auth(adminWrite)
	ad := a.Group("/api/admin")
	ad.Get("/users", read, s.listUsers)
	ad.Get("/users/find", read, s.findUser)
	ad.Put("/users/:id/status", write, s.setUserStatus)
	ad.Put("/users/:id/limits", write, s.setUserLimits)
	ad.Post("/assign-roles", write, s.assignRoles)
	ad.Get("/audit-logs", read, s.auditLogs)
	ad.Get("/audit-logs/verify", read, s.verifyAuditLog)
	ad.Get("/audit-logs/follow", read, s.auditFollowUpgrade, s.auditFollowHandler())
	ad.Get("/accounts", read, s.allAccounts)
	ad.Get("/ledger/trial-balance", read, s.trialBalance)
	ad.Post("/accounts/:account_number/deposit", write, s.deposit)
	ad.Post("/accounts/:account_number/withdraw", write, s.withdraw)
	ad.Get("/admindashboard/transactions-summary", read, s.adminSummary)
	ad.Get("/admindashboard/monthly-transactions", read, s.adminMonthly)
	ad.Get("/transactions/money-request", read, s.adminMoneyRequests)
	ad.Get("/transactions/history", read, s.adminHistory)
	ad.Post("/transactions/:id/reverse", write, s.reverseTransaction)
	ad.Put("/fx-rates/:base/:quote", write, s.setFXRate)
	ad.Get("/approvals", read, s.approvals)
	ad.Post("/approvals/:id/approve", write, s.approveApproval)
	ad.Post("/approvals/:id/reject", write, s.rejectApproval)
	ad.Get("/account-types", read, s.accountTypeRates)
	ad.Put("/account-types/:id", write, s.setInterestRate)
	ad.Post("/oauth-clients", write, s.createOAuthClient)
	ad.Get("/oauth-clients", read, s.listOAuthClients)

	// Exchange rates, for anyone signed in and any token: they are the
	// bank's, not a customer's.
	a.Get("/api/fx-rates", s.auth(anyRate), s.fxRates)

	// Customers (and, for notifications and password reset, any signed-in user).
	session := s.auth(sessionOnly)
	u := a.Group("/api/user")
	u.Post("/password-reset", session, s.resetPassword)
	u.Get("/account-types", s.auth(appAccountsRead), s.accountTypes)
	u.Post("/accounts", session, s.createAccount)
	u.Get("/accounts", s.auth(appAccountsRead), s.listAccounts)
	u.Get("/accounts/:userId", s.auth(appAccountsRead), s.listAccounts)
	u.Put("/accounts/:id", session, s.updateAccount)
	u.Delete("/accounts/:id", session, s.closeAccount)
	u.Get("/accounts/:id/interest", s.auth(accountsRead), s.accountInterest)
	u.Get("/account-details", s.auth(accountsRead), s.lookupAccount)
	// "/money-transer" is the first app's spelling, kept for its clients;
	// "/money-transfer" is the same handler spelled right.
	u.Post("/money-transer", s.auth(appTransfers), s.transfer)
	u.Post("/money-transfer", s.auth(appTransfers), s.transfer)
	u.Get("/transactions/history", s.auth(appHistoryRead), s.history)
	u.Post("/fx-quotes", s.auth(transfersWrite), s.createFXQuote)
	u.Post("/fx-transfers", s.auth(transfersWrite), s.fxTransfer)
	u.Get("/preferences", session, s.preferences)
	u.Put("/preferences", session, s.setPreferences)
	u.Post("/scheduled-transfers", s.auth(transfersWrite), s.createScheduledTransfer)
	u.Get("/scheduled-transfers", s.auth(transactionsRead), s.listScheduledTransfers)
	u.Delete("/scheduled-transfers/:id", s.auth(transfersWrite), s.cancelScheduledTransfer)
	u.Get("/scheduled-transfers/:id/runs", s.auth(transactionsRead), s.scheduledTransferRuns)
	u.Get("/statements", s.auth(transactionsRead), s.statement)
	u.Post("/money-request", s.auth(transfersWrite), s.createMoneyRequest)
	u.Get("/transactions/money-request", s.auth(transactionsRead), s.listMoneyRequests)
	u.Put("/accept-money-request/:id", s.auth(transfersWrite), s.acceptMoneyRequest)
	u.Put("/decline-money-request/:id", s.auth(transfersWrite), s.declineMoneyRequest)
	u.Get("/payees", session, s.listPayees)
	u.Post("/payees", session, s.createPayee)
	u.Delete("/payees/:id", session, s.deletePayee)
	u.Get("/limits", s.auth(accountsRead), s.listDailyLimits)
	u.Get("/dashboard/transactions-summary", s.auth(transactionsRead), s.userSummary)
	u.Get("/dashboard/monthly-transactions", s.auth(transactionsRead), s.userMonthly)
	u.Post("/webhooks", s.auth(transactionsRead), s.createWebhook)
	u.Get("/webhooks", s.auth(transactionsRead), s.listWebhooks)
	u.Delete("/webhooks/:id", s.auth(transactionsRead), s.deleteWebhook)
	u.Get("/webhooks/:id/deliveries", s.auth(transactionsRead), s.webhookDeliveries)
	u.Post("/webhooks/:id/deliveries/:event_id/redeliver", s.auth(transactionsRead), s.redeliverWebhook)
	u.Get("/notifications", session, s.listNotifications)
	u.Put("/notifications/read-all", session, s.readAllNotifications)
	u.Put("/notifications/:id/read", session, s.readNotification)
	u.Get("/devices", session, s.listDevices)
	u.Post("/devices", session, s.registerDevice)
	u.Delete("/devices/:id", session, s.removeDevice)

	a.Get("/ws", s.wsUpgrade, s.wsHandler())

	// Unknown API paths are a JSON 404 (405 with Allow for a known path
	// asked with another method); everything else is the web app.
	a.All(apiFallback, s.apiNotFound)
	a.Get("/*", s.web)
	a.Head("/*", s.web)
}
