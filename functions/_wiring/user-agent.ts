/** `User-Agent` of webhook deliveries and of calls to channel providers (contract: `<product>/<version>`). */
export const USER_AGENT = 'Switchboard/0.1.0';
