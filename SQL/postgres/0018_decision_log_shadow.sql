-- AttestGuard schema 18: the shadow rule set's verdict beside the live one. When a shadow set is in force
-- (rules.shadowDirectory), every logged verdict also records what the shadow set decided, its version and the rules
-- that fired in it, so that the console counts shadow hits and disagreements over every process's traffic. Rows
-- written without a shadow set (or before this version) have none. Nullable columns without a default: adding them
-- rewrites nothing, and every day partition, existing or created later, gets them from the parent. No index: the
-- console reads them by time.
ALTER TABLE decision_log ADD COLUMN shadow_decision text;
ALTER TABLE decision_log ADD COLUMN shadow_rule_set_version text;
ALTER TABLE decision_log ADD COLUMN shadow_fired text;
