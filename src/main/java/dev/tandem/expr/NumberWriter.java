package dev.tandem.expr;

import java.util.List;

/**
 * PostgreSQL's NUM_processor writing a number into a number template's positions: its digits, sign, decimal point and
 * group separators as the template's {@link NumberTemplates.NumberSpec} places them.
 */
final class NumberWriter {
    private final List<FormatTemplates.Node> nodes;
    private final NumberTemplates.NumberSpec num;
    private final String number;
    private final int outPreSpaces;
    private final char sign;
    private final StringBuilder out = new StringBuilder();
    private boolean signWrote;
    private int numCount;
    private int numCurr;
    private int numberP;
    private int lastRelevant = -1;
    private boolean numIn;
    private boolean lsignPost;
    private int zeroStart;
    /** Where PostgreSQL's output string ends: it writes a NUL for a digit past the number's last. */
    private int cut = -1;

    NumberWriter(List<FormatTemplates.Node> nodes, NumberTemplates.NumberSpec num, String number, int outPreSpaces, char sign) {
        this.nodes = nodes;
        this.num = num;
        this.number = number;
        this.outPreSpaces = outPreSpaces;
        this.sign = sign;
    }

    private char at(int i) {
        return i < number.length() ? number.charAt(i) : '\0';
    }

    String write() {
        zeroStart = num.zeroStart > 0 ? num.zeroStart - 1 : 0;
        lsignPost = num.lsignPost;
        if (num.plus || num.minus) {
            signWrote = !(num.plus && !num.minus);
        } else {
            signWrote = sign == '+' && num.fill && !num.lsign;
            if (num.lsign && !lsignPost && num.pre == num.preLsign) {
                lsignPost = true;
            }
        }
        numCount = num.post + num.pre - 1;
        if (num.fill && num.decimal) {
            lastRelevant = lastRelevantDecimal();
            if (lastRelevant >= 0 && num.zeroEnd > outPreSpaces) {
                int lastZero = Math.min(number.length() - 1, num.zeroEnd - outPreSpaces);
                if (lastRelevant < lastZero) {
                    lastRelevant = lastZero;
                }
            }
        }
        if (!signWrote && outPreSpaces == 0) {
            numCount++;
        }
        for (FormatTemplates.Node node : nodes) {
            if (node.keyword() == null) {
                out.append(node.text());
                continue;
            }
            switch (node.keyword().toUpperCase(java.util.Locale.ROOT)) {
                case "9", "0", ".", "D" -> digit(node.keyword().toUpperCase(java.util.Locale.ROOT));
                case ",", "G" -> {
                    if (!numIn) {
                        if (!num.fill) {
                            out.append(' ');
                        }
                    } else {
                        out.append(',');
                    }
                }
                case "MI" -> {
                    if (sign == '-') {
                        out.append('-');
                    } else if (!num.fill) {
                        out.append(' ');
                    }
                }
                case "PL" -> {
                    if (sign == '+') {
                        out.append('+');
                    } else if (!num.fill) {
                        out.append(' ');
                    }
                }
                case "SG" -> out.append(sign);
                default -> {
                }
            }
        }
        return cut >= 0 ? out.substring(0, cut) : out.toString();
    }

    private int lastRelevantDecimal() {
        int p = number.indexOf('.');
        if (p < 0) {
            return -1;
        }
        int result = p;
        for (int i = p + 1; i < number.length(); i++) {
            if (number.charAt(i) != '0') {
                result = i;
            }
        }
        return result;
    }

    private boolean predecSpace() {
        return !num.zero && numberP == 0 && at(0) == '0' && num.post != 0;
    }

    private void digit(String id) {
        numIn = false;
        if (!signWrote && (numCurr >= outPreSpaces || (num.zero && zeroStart == numCurr))
                && (!predecSpace() || (lastRelevant >= 0 && at(lastRelevant) == '.'))) {
            if (num.lsign) {
                if (!lsignPost) {
                    out.append(sign == '-' ? '-' : '+');
                    signWrote = true;
                }
            } else if (sign == '+') {
                if (!num.fill) {
                    out.append(' ');
                }
                signWrote = true;
            } else {
                out.append('-');
                signWrote = true;
            }
        }
        if (numCurr < outPreSpaces && (zeroStart > numCurr || !num.zero)) {
            if (!num.fill) {
                out.append(' ');
            }
        } else if (num.zero && numCurr < outPreSpaces && zeroStart <= numCurr) {
            out.append('0');
            numIn = true;
        } else {
            if (at(numberP) == '.') {
                if (lastRelevant < 0 || at(lastRelevant) != '.') {
                    out.append('.');
                } else if (num.fill) {
                    out.append('.');
                }
            } else {
                if (lastRelevant >= 0 && numberP > lastRelevant && !id.equals("0")) {
                    // a trailing zero FM drops
                } else if (predecSpace()) {
                    if (!num.fill) {
                        out.append(' ');
                    } else if (lastRelevant >= 0 && at(lastRelevant) == '.') {
                        out.append('0');
                    }
                } else {
                    char c = at(numberP);
                    if (c != '\0') {
                        out.append(c);
                    } else if (cut < 0) {
                        cut = out.length();
                    }
                    numIn = true;
                }
            }
            if (numberP < number.length()) {
                numberP++;
            }
        }
        int end = numCount + (outPreSpaces > 0 ? 1 : 0) + (num.decimal ? 1 : 0);
        if (lastRelevant >= 0 && lastRelevant == numberP) {
            end = numCurr;
        }
        if (numCurr + 1 == end && num.lsign && lsignPost) {
            out.append(sign == '-' ? '-' : '+');
        }
        numCurr++;
    }
}
