package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.internal.Cidr;
import io.github.ratelimit.core.internal.Messages;
import org.springframework.validation.Errors;

/**
 * The checks of {@code ratelimit.*} at binding: each rejected value names its property (relative to {@code
 * ratelimit}) and says what it must be, so that Boot's failure report names the property and the value.
 */
final class RateLimitPropertiesValidator {

    private RateLimitPropertiesValidator() {}

    static void validate(RateLimitProperties p, Errors errors) {
        if (p.getKeyPrefix() == null
                || !Messages.KEY_PREFIX.matcher(p.getKeyPrefix()).matches()) {
            errors.rejectValue("keyPrefix", "pattern", Messages.badKeyPrefix(null, p.getKeyPrefix()));
        }
        if (p.getRedis().getTimeout() == null || p.getRedis().getTimeout().toMillis() < 1) {
            errors.rejectValue(
                    "redis.timeout",
                    "min",
                    Messages.atLeast(null, "1 ms", p.getRedis().getTimeout()));
        }
        if (p.getRedis().getFailureThreshold() < 1) {
            errors.rejectValue(
                    "redis.failureThreshold",
                    "min",
                    Messages.atLeast(null, 1, p.getRedis().getFailureThreshold()));
        }
        if (p.getRedis().getOpenFor() == null || p.getRedis().getOpenFor().isNegative()) {
            errors.rejectValue(
                    "redis.openFor", "min", Messages.negative(null, p.getRedis().getOpenFor()));
        }
        if (p.getRedis().getConnectTimeout() != null
                && p.getRedis().getConnectTimeout().toMillis() < 1) {
            errors.rejectValue(
                    "redis.connectTimeout",
                    "min",
                    Messages.atLeast(null, "1 ms", p.getRedis().getConnectTimeout()));
        }
        if (p.getRetryAdvice().getDefault() == null || p.getRetryAdvice().getDefault() == RetryAdvice.DEFAULT) {
            errors.rejectValue("retryAdvice.default", "value", "must be earliest or staggered");
        }
        if (p.getRetryAdvice().getHorizonWindows() < 1) {
            errors.rejectValue(
                    "retryAdvice.horizonWindows",
                    "min",
                    Messages.atLeast(null, 1, p.getRetryAdvice().getHorizonWindows()));
        }
        if (p.getDurability().getReplicaWait() != null
                && (p.getDurability().getReplicaWait().toMillis() < 1
                        || (p.getRedis().getTimeout() != null
                                && p.getDurability()
                                                .getReplicaWait()
                                                .compareTo(p.getRedis().getTimeout())
                                        >= 0))) {
            errors.rejectValue(
                    "durability.replicaWait",
                    "range",
                    "must be at least 1ms and shorter than ratelimit.redis.timeout (the wait is spent inside it)");
        }
        if (p.getLocalRefusals().getMaxEntries() < 1) {
            errors.rejectValue(
                    "localRefusals.maxEntries",
                    "min",
                    Messages.atLeast(null, 1, p.getLocalRefusals().getMaxEntries()));
        }
        if (p.getFailureMode() == null || p.getFailureMode() == FailureMode.DEFAULT) {
            errors.rejectValue("failureMode", "value", "must be local, open or closed");
        }
        if (p.getLocalLimits().getInstances() < 1) {
            errors.rejectValue(
                    "localLimits.instances",
                    "min",
                    Messages.atLeast(null, 1, p.getLocalLimits().getInstances()));
        }
        if (p.getLocalLimits().getMaxEntries() < 1) {
            errors.rejectValue(
                    "localLimits.maxEntries",
                    "min",
                    Messages.atLeast(null, 1, p.getLocalLimits().getMaxEntries()));
        }
        if (p.getClient().getIpv6PrefixLength() < 1 || p.getClient().getIpv6PrefixLength() > 128) {
            errors.rejectValue(
                    "client.ipv6PrefixLength",
                    "range",
                    Messages.between(null, 1, 128, p.getClient().getIpv6PrefixLength()));
        }
        if (p.getActuator().getMaxBlock() == null
                || p.getActuator().getMaxBlock().toMillis() < 1) {
            errors.rejectValue(
                    "actuator.maxBlock",
                    "min",
                    Messages.atLeast(null, "1 ms", p.getActuator().getMaxBlock()));
        }
        if (p.getClient().getMaxPause() == null || p.getClient().getMaxPause().toMillis() < 1) {
            errors.rejectValue(
                    "client.maxPause",
                    "min",
                    Messages.atLeast(null, "1 ms", p.getClient().getMaxPause()));
        }
        try {
            p.getPlans().compiled();
        } catch (IllegalArgumentException e) {
            errors.rejectValue("plans.groups", "invalid", String.valueOf(e.getMessage()));
        }
        for (int i = 0; i < p.getExempt().getIps().size(); i++) {
            try {
                Cidr.parse(p.getExempt().getIps().get(i), "exempt ip");
            } catch (IllegalArgumentException e) {
                errors.rejectValue(
                        "exempt.ips[" + i + "]",
                        "format",
                        "must be an IP address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32");
            }
        }
        p.getExempt().getHeaders().forEach((name, values) -> {
            if (name == null
                    || name.isBlank()
                    || values == null
                    || values.stream().anyMatch(v -> v == null || v.isEmpty())) {
                errors.rejectValue("exempt.headers", "empty", "names a header '" + name + "' with an empty value");
            }
        });
        for (int i = 0; i < p.getClient().getTrustedProxies().size(); i++) {
            try {
                Cidr.parse(p.getClient().getTrustedProxies().get(i), "trusted proxy");
            } catch (IllegalArgumentException e) {
                errors.rejectValue(
                        "client.trustedProxies[" + i + "]",
                        "format",
                        "must be an IP address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32");
            }
        }
    }
}
