/* tests/fuzz/fuzz_agent.h — what the agent harnesses share: the shipped rate-limit rules, secret patterns and client profiles, loaded once. */
#ifndef RTK_FUZZ_AGENT_H
#define RTK_FUZZ_AGENT_H

#include "agent/profile.h"
#include "lib/err.h"

static inline struct ratelimit *fuzz_rules(void)
{
	static struct ratelimit *rl;
	char sha[65];
	if (!rl && ratelimit_load(NULL, &rl, sha))
		RTK_BUG("the shipped rate-limit rules do not load: %s", rtk_error_message());
	return rl;
}

/* The output is read redacted, as loop and iterate read it. */
static inline struct secrets *fuzz_secrets(void)
{
	static struct secrets *s;
	char sha[65];
	if (!s && secrets_load(NULL, &s, sha))
		RTK_BUG("the shipped secret patterns do not load: %s", rtk_error_message());
	return s;
}

static inline struct profile_set *fuzz_profiles(void)
{
	static struct profile_set *set;
	if (!set && profile_set_load(&set))
		RTK_BUG("the shipped agent profiles do not load: %s", rtk_error_message());
	return set;
}

#endif
