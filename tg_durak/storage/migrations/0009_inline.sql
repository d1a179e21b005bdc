-- Inline mode: a table's public message may be one a person sent "via @bot" into a chat the
-- bot is not in. The bot knows it by its inline_message_id alone; such a row keeps message_id 0
-- and, as its chat_id, the key play/inline.py makes of the chat's chat_instance.
ALTER TABLE messages ADD COLUMN inline_message_id TEXT;
-- One table at a time shows in an inline message (a rematch moves the row to the new table).
CREATE UNIQUE INDEX messages_by_inline ON messages (inline_message_id);
