package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A composed annotation: the sample's API limit written once, 30 calls per minute per client and method. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@RateLimited(limit = 30, windowMs = 60_000)
public @interface ApiLimit {}
