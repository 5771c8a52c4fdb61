/** Types of scripts/eslint-front-door.js (imported by eslint.config.js and its test). */
import type { Rule } from 'eslint';

export declare const frontDoor: Rule.RuleModule;
