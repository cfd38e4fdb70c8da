-- AttestGuard schema 15: an accepted assertion in one round trip. attestguard_commit_assertion locks the challenge
-- when it may be consumed (unused, unexpired, this app and purpose, this user and key where bound), advances the
-- key's counter when the key is active and its counter lower, and only then consumes the challenge: both changes
-- or neither, in one autocommit statement and without a savepoint. Rows are locked challenge first, then key, as
-- every other writer does. A concurrent writer that held a row lock is waited for and the condition is checked again
-- on the row it committed (READ COMMITTED), so 64 racers still have one winner. The answer is the step that failed
-- ('challenge' or 'counter'; NULL when committed) and, when committed, the key's previous counter.
CREATE FUNCTION attestguard_commit_assertion(
    p_challenge bytea, p_app_id text, p_purpose text, p_user_id text, p_key_id bytea, p_at timestamptz,
    p_expiry_threshold timestamptz, p_counter bigint, p_request jsonb,
    OUT failed_step text, OUT previous_counter bigint
) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM challenges
    WHERE id = p_challenge AND app_id = p_app_id AND purpose = p_purpose
      AND consumed_at IS NULL AND expires_at > p_expiry_threshold
      AND (user_id IS NULL OR user_id = p_user_id) AND (key_id IS NULL OR key_id = p_key_id)
    FOR UPDATE;
    IF NOT FOUND THEN
        failed_step := 'challenge';
        RETURN;
    END IF;
    SELECT counter INTO previous_counter FROM app_keys
    WHERE app_id = p_app_id AND key_id = p_key_id AND status = 'active' AND counter < p_counter
    FOR UPDATE;
    IF NOT FOUND THEN
        failed_step := 'counter';
        RETURN;
    END IF;
    UPDATE app_keys SET counter = p_counter, last_assertion_at = p_at WHERE app_id = p_app_id AND key_id = p_key_id;
    UPDATE challenges
    SET consumed_at = p_at, consumed_key_id = p_key_id, consumed_counter = p_counter, consumed_request = p_request
    WHERE id = p_challenge;
END
$$;
