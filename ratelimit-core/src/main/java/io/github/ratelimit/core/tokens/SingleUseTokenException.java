package io.github.ratelimit.core.tokens;

import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;

/** A single-use token was refused. The message never contains the token. */
public class SingleUseTokenException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final TokenConsumption.Status status;
    private final String purpose;

    public SingleUseTokenException(TokenConsumption.Status status, String purpose) {
        super(message(status, purpose));
        if (status == TokenConsumption.Status.CONSUMED) {
            throw new IllegalArgumentException("a consumed token is not an error");
        }
        this.status = status;
        this.purpose = purpose;
    }

    private static String message(TokenConsumption.Status status, String purpose) {
        return switch (status) {
            case MISSING -> "No single-use token was given for '" + purpose + "'";
            case MALFORMED -> "The single-use token for '" + purpose + "' is malformed";
            case UNKNOWN -> "The single-use token for '" + purpose + "' is unknown or expired";
            case ALREADY_USED -> "The single-use token for '" + purpose + "' was already used";
            case CONSUMED -> "consumed";
        };
    }

    /** Why the token was refused. */
    public TokenConsumption.Status status() {
        return status;
    }

    /** The purpose the token was presented for. */
    public String purpose() {
        return purpose;
    }
}
