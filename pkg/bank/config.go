package bank

import "time"

// DefaultLockAfter is config lock_after's default.
const DefaultLockAfter = 5 * time.Minute

// PublicConfig is what the app may know of the server's configuration
// before anyone signs in, to show only what works here.
type PublicConfig struct {
	// CustomerFunding is config customer_funding: customers set opening
	// balances and edit balances (true), or only administrators move money
	// in and out (false), and the app hides those fields.
	CustomerFunding bool `json:"customer_funding"`
	// RequireTwoFactorForAdmins is config require_2fa_for_admins: an
	// administrator must turn two-factor sign-in on before anything else.
	RequireTwoFactorForAdmins bool `json:"require_2fa_for_admins"`
	// LockAfterSeconds is config lock_after: how long the phone app may stay
	// in the background before it asks for biometrics again.
	LockAfterSeconds int64 `json:"lock_after_seconds"`
}

// PublicConfig returns the configuration the app may read.
func (s *Service) PublicConfig() PublicConfig {
	lock := s.settings.LockAfter
	if lock <= 0 {
		lock = DefaultLockAfter
	}
	return PublicConfig{CustomerFunding: !s.settings.DisableCustomerFunding, RequireTwoFactorForAdmins: s.settings.RequireTwoFactorForAdmins,
		LockAfterSeconds: int64(lock / time.Second)}
}
