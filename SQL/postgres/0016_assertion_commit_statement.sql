-- AttestGuard schema 16: what lets an accepted assertion be one plain statement instead of a PL/pgSQL call (whose
-- four inner statements each paid their own executor start). The statement consumes the challenge and advances the
-- key's counter in two data-modifying CTEs; when the challenge was consumed but the counter cannot advance (the key
-- is not active, or its counter is not lower) it calls this function, whose error rolls the whole statement back,
-- the challenge's consumption included. The store reads SQLSTATE AGC01 as the counter's refusal and diagnoses it.
-- attestguard_commit_assertion (schema 15) stays for processes of the previous version during a rolling upgrade;
-- both lock the challenge before the key.
CREATE FUNCTION attestguard_refuse_assertion_counter() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the key is not active or its counter is not lower than the assertion''s' USING ERRCODE = 'AGC01';
END
$$;
