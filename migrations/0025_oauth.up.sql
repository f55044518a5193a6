SET LOCAL lock_timeout = '5s';
-- Connected apps (contract §9): Meridian is an OAuth 2.0 authorization
-- server (pkg/oauth, on github.com/zitadel/oidc). An administrator registers
-- a client; a customer's consent makes a grant (the scopes and the accounts
-- the app may see); the grant's access tokens are rows of auth_tokens (kind
-- oauth), its refresh tokens rotate on every use, and a refresh token used
-- twice revokes the whole grant. Only hashes of codes, refresh tokens and
-- client secrets are kept; the signing key is sealed with a key derived
-- from jwt_secret.
CREATE TABLE oauth_clients (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id     text NOT NULL CONSTRAINT oauth_clients_client_id_key UNIQUE CHECK (length(client_id) <= 64),
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
    secret_hash   bytea, -- NULL: a public client, which proves itself by PKCE only
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_grants (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id),
    client_id  text NOT NULL REFERENCES oauth_clients (client_id),
    scopes     text[] NOT NULL,
    accounts   text[] NOT NULL, -- account numbers the app may see
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id, id DESC) WHERE revoked_at IS NULL;

CREATE TABLE oauth_codes (
    code_hash      bytea PRIMARY KEY,
    grant_id       bigint NOT NULL REFERENCES oauth_grants (id),
    redirect_uri   text NOT NULL,
    code_challenge text NOT NULL,
    nonce          text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

CREATE TABLE oauth_refresh_tokens (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash bytea NOT NULL CONSTRAINT oauth_refresh_tokens_token_hash_key UNIQUE,
    grant_id   bigint NOT NULL REFERENCES oauth_grants (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz -- rotated: presenting it again revokes the grant
);
CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id);

CREATE TABLE oauth_signing_keys (
    id         text PRIMARY KEY,
    sealed_key bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
